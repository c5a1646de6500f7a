// Assembles the service: the store, the operation worker and waiters, and one hono app composed of one sub-app
// per surface. `http.fetch` is the whole service as a fetch-style handler; tests call `http.request()` with no
// socket, and `baton serve` hands `http.fetch` to @hono/node-server (http/node-server.ts).
//
// Adding a surface (the public `/v1` API, `/v1/mcp`, the egress proxy's internal route, sandbox-manager admin):
//  1. Make `src/server/<surface>/app.ts` exporting `create<Surface>App(deps)`: `const app = createSurface()`
//     (http/surface.ts), then one `app.openapi(createRoute({...}), handler)` per route. The route definition
//     holds the path (relative to the mount, OpenAPI style `/tasks/{id}`), `summary`, `security` (SECURITY in
//     openapi/schemas.ts), `middleware` (auth first, then `...jsonBody(what, limit)` for a body: nothing reads
//     a body before the caller is known, and each body has its own limit), `request` (params, query, headers,
//     body as zod schemas: hono validates them and failures become 400s naming the field), and `responses`
//     (named schemas from openapi/schemas.ts plus `errorResponses({...})`).
//  2. Handlers read `c.req.valid(...)`, call a domain function, `return c.json(body, status)`, and refuse by
//     throwing an HttpError (http/http-error.ts) that renders `{error, reason, requestId}`.
//  3. Mount it in composeHttpApp with `app.route(BASE_PATH, create<Surface>App(deps))`, the base path a wire
//     constant (src/transport/wire.ts or the surface's own wire file), before onError/notFound at the end (the
//     405 table is built from the routes mounted by then). A route that must stay out of the published
//     document (the egress proxy's internal route) takes `hide: true` in its createRoute.
//  4. `npm run build && node scripts/generate-openapi.mjs` regenerates openapi/baton-ops.json; commit it (a
//     test compares). Test the routes with `app.http.request()`; add a socket test only for adapter concerns.
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Logger } from "pino";
import { PROXY_INTERNAL_BASE_PATH } from "../proxy/lease/wire.js";
import { ADMIN_BASE_PATH, MEMBER_BASE_PATH, OPS_BASE_PATH } from "../transport/wire.js";
import { createAdminApp } from "./admin/app.js";
import { createSandboxAdminApp } from "./admin/sandboxes.js";
import { createApiApp } from "./api/app.js";
import { API_BASE_PATH } from "./api/wire.js";
import type { CapabilityRuntime } from "./capability/runtime.js";
import { type CapabilitySettings, dashboardBaseFor } from "./capability/settings.js";
import { startCapabilityRuntime } from "./capability/start-runtime.js";
import { CODEHOST_GIT_BASE_PATH, createCodehostGitApp } from "./codehost/git-http.js";
import type { ServerDeps } from "./deps.js";
import { createHealthApp } from "./health/app.js";
import { allowedMethodsOf } from "./http/allowed-methods.js";
import { handleError, handleNotFound } from "./http/errors.js";
import { throttleFailedCredentials } from "./http/failed-credentials.js";
import { requestContext } from "./http/request-context.js";
import { createSurface, type ServerEnv } from "./http/surface.js";
import { createMembersApp } from "./members/app.js";
import { createOpenApiApp } from "./openapi/app.js";
import { describeApp } from "./openapi/document.js";
import { SECURITY_SCHEMES } from "./openapi/schemas.js";
import { OperationWaiters } from "./operations/waiters.js";
import { OperationWorker } from "./operations/worker.js";
import { createOpsApp } from "./ops/app.js";
import { createProxyInternalApp } from "./proxy/app.js";
import type { SandboxManager } from "./sandboxes/manager.js";
import type { SecretBox } from "./secrets/secret-box.js";
import type { Database } from "./store/sqlite.js";
import { createTaskService, type TaskServiceOptions } from "./tasks/service.js";

export interface ServerAppOptions {
  db: Database;
  logger: Logger;
  adminToken?: string | undefined;
  now?: () => Date;
  activationDelayMs?: number;
  capability?: CapabilitySettings | undefined;
  /**
   * The task engine's settings: where sandboxes and the local code host live (`workRoot`; a temporary folder,
   * removed on stop, when not given), the agent program, test hooks.
   */
  tasks?:
    | Partial<Omit<TaskServiceOptions, "db" | "now" | "logger" | "dashboardBase" | "serviceUrl">>
    | undefined;
  /** The operator's key for secret values (`--secret-key-file`). */
  secretBox: SecretBox;
  /** BATON_PROXY_TOKEN: enables the egress proxy's internal routes; unset, they answer 404. */
  proxyToken?: string | undefined;
  /** The egress proxy's URL given to sandboxes as BATON_PROXY_URL (`--proxy-url`). */
  proxyUrl?: string | undefined;
  /** Holds the sandbox manager when the service runs a sandbox driver (see ServerDeps.sandboxes). */
  sandboxes?: { current?: SandboxManager | undefined };
}

export interface ServerApp {
  /** The composed hono app: `http.fetch` for an adapter, `http.request(path, init)` for tests. */
  http: OpenAPIHono<ServerEnv>;
  /** `http.fetch` for a ready Request. */
  handle: (request: Request) => Promise<Response>;
  deps: ServerDeps;
  /** Resets interrupted operations and resumes open ones. Call once the service is ready to serve. */
  start(): void;
  /** Wakes long-polls, lets the operation in hand finish; the caller closes the database afterwards. */
  stop(): Promise<void>;
}

/** Every surface under its base path, one error shape, one request id. Composing runs no route. */
export function composeHttpApp(deps: ServerDeps, rt: CapabilityRuntime): OpenAPIHono<ServerEnv> {
  const app = createSurface();
  app.use(requestContext(deps.logger));
  app.use(throttleFailedCredentials({ logger: deps.logger, now: () => deps.now() }));
  app.route("/", createHealthApp());
  app.route(OPS_BASE_PATH, createOpsApp(deps, rt));
  app.route(ADMIN_BASE_PATH, createAdminApp(deps));
  app.route(ADMIN_BASE_PATH, createSandboxAdminApp(deps));
  app.route(MEMBER_BASE_PATH, createMembersApp(deps, rt));
  app.route(API_BASE_PATH, createApiApp(deps));
  app.route(PROXY_INTERNAL_BASE_PATH, createProxyInternalApp(deps));
  app.route(CODEHOST_GIT_BASE_PATH, createCodehostGitApp(deps));
  let document: Record<string, unknown> | undefined;
  app.route(
    "/",
    createOpenApiApp(() => (document ??= describeApp(app))),
  );
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  app.onError(handleError(deps.logger));
  app.notFound(handleNotFound(allowedMethodsOf(app.routes)));
  return app;
}

export function createServerApp(options: ServerAppOptions): ServerApp {
  const now = options.now ?? (() => new Date());
  const waiters = new OperationWaiters();
  const worker = new OperationWorker({
    db: options.db,
    now,
    logger: options.logger,
    waiters,
    ...(options.activationDelayMs ? { activationDelayMs: options.activationDelayMs } : {}),
  });
  const stopHooks: (() => Promise<void>)[] = [];
  let workRoot = options.tasks?.workRoot;
  if (!workRoot) {
    const made = mkdtempSync(join(tmpdir(), "baton-work-"));
    workRoot = made;
    stopHooks.push(() => rm(made, { recursive: true, force: true }));
  }
  const tasks = createTaskService({
    ...options.tasks,
    db: options.db,
    now,
    logger: options.logger,
    workRoot,
    dashboardBase: () => dashboardBaseFor(options.capability),
    serviceUrl: () => options.capability?.serviceUrl ?? "http://127.0.0.1",
  });
  const deps: ServerDeps = {
    db: options.db,
    now,
    logger: options.logger,
    worker,
    waiters,
    adminToken: options.adminToken,
    capability: options.capability,
    tasks,
    secretBox: options.secretBox,
    proxyToken: options.proxyToken,
    proxyUrl: options.proxyUrl,
    onStop: (stop) => stopHooks.push(stop),
    sandboxes: options.sandboxes ?? {},
  };
  const http = composeHttpApp(deps, startCapabilityRuntime(deps));
  return {
    http,
    handle: async (request) => http.fetch(request),
    deps,
    start: () => {
      worker.recover();
      tasks.start();
    },
    stop: async () => {
      await tasks.stop();
      waiters.wakeAll();
      await worker.stop();
      waiters.wakeAll();
      await Promise.all(stopHooks.map((stop) => stop()));
    },
  };
}
