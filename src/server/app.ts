// Assembles the service: the store, the operation worker and waiters, and one sub-app per surface mounted on the
// listener that serves it (composeListeners): public, sandbox (the box forwarders' target) and admin. Each
// listener is a fetch-style handler that `baton serve` hands to @hono/node-server (surfaces/http/node-server.ts) on its
// own address; tests call `listeners.<name>.request()`, or `http.request()` for every surface, with no socket.
//
// Adding a surface (the public `/v1` API, `/v1/mcp`, the egress proxy's internal route, sandbox-manager admin):
//  1. Make `src/server/surfaces/<surface>/app.ts` exporting `create<Surface>App(deps)`, its deps the surface's own
//     type (surfaces/<surface>/deps.ts: what it uses, nothing more): `const app = createSurface()`
//     (surfaces/http/surface.ts), then one `app.openapi(createRoute({...}), handler)` per route. The route definition
//     holds the path (relative to the mount, OpenAPI style `/tasks/{id}`), `summary`, `security` (SECURITY in
//     surfaces/openapi/schemas.ts), `middleware` (auth first, then `...jsonBody(what, limit)` for a body: nothing reads
//     a body before the caller is known, and each body has its own limit), `request` (params, query, headers,
//     body as zod schemas: hono validates them and failures become 400s naming the field), and `responses`
//     (named schemas from surfaces/openapi/schemas.ts plus `errorResponses({...})`).
//  2. Handlers read `c.req.valid(...)`, call a domain function, `return c.json(body, status)`, and refuse what
//     only the surface knows by throwing an HttpError (surfaces/http/http-error.ts) that renders `{error, reason,
//     requestId}`. A domain function refuses with a DomainError (domain/errors.ts); the surface answers each code
//     from its own table: `app.onError(mapDomainErrors(<SURFACE>_DOMAIN_ANSWERS))` (surfaces/http/domain-errors.ts),
//     set before the sub-app is mounted.
//  3. Mount it in composeListeners: a Mount `[BASE_PATH, create<Surface>App(deps)]`, the base path a wire
//     constant (src/transport/wire.ts or the surface's own wire file), added to `all` and to the one listener
//     that serves it (a box reaches only `sandbox`; operator surfaces go on `admin`). A route that must stay out of the published
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
import { NO_TRUSTED_PROXIES, type TrustedProxies } from "../throttle/client-address.js";
import { ADMIN_BASE_PATH, MEMBER_BASE_PATH, OPS_BASE_PATH } from "../transport/wire.js";
import type { CodehostAppApi } from "./adapters/codehost/app-api.js";
import { createGithubCodehost } from "./adapters/codehost/github/adapter.js";
import { codehostPushOf } from "./adapters/codehost/push-access.js";
import { InstanceRelay } from "./adapters/instances/relay.js";
import { type IntegrationSettings, LOCAL_INTEGRATIONS } from "./adapters/integrations/settings.js";
import type { SandboxManager } from "./adapters/sandboxes/manager.js";
import { createLinearTracker } from "./adapters/tracker/linear/index.js";
import type { ServerDeps } from "./deps.js";
import type { CapabilityRuntime } from "./domain/capability/runtime.js";
import { type CapabilitySettings, dashboardBaseFor } from "./domain/capability/settings.js";
import { startCapabilityRuntime } from "./domain/capability/start-runtime.js";
import { DEFAULT_LEASE_MS, type LeaseSettings } from "./domain/leases.js";
import { lazyCredentialThrottle } from "./domain/limits/create-limiter.js";
import { OperationWaiters } from "./domain/operations/waiters.js";
import { OperationWorker } from "./domain/operations/worker.js";
import { createTaskService, type TaskServiceOptions } from "./domain/tasks/service.js";
import { applyIssueEvent } from "./domain/tickets/issue-events.js";
import { IssueReplyWorker } from "./domain/tickets/issue-replies.js";
import { deliveryKey } from "./domain/tickets/issue-task.js";
import { handleError, handleNotFound, type PagesNotFound } from "./handle-errors.js";
import { type InstanceIdentity, newInstanceIdentity } from "./primitives/instance.js";
import type { SecretBox } from "./primitives/secret-box.js";
import type { Store } from "./store/store.js";
import { DEFAULT_WAKE_POLL_MS } from "./store/wake-channels.js";
import { serveTurnAnswers } from "./surfaces/admin/answer-turn.js";
import { createAdminApp } from "./surfaces/admin/app.js";
import { createSandboxAdminApp } from "./surfaces/admin/sandboxes.js";
import { createTaskAdminApp } from "./surfaces/admin/tasks.js";
import { createApiApp } from "./surfaces/api/app.js";
import { API_BASE_PATH } from "./surfaces/api/wire.js";
import { CODEHOST_GIT_BASE_PATH, createCodehostGitApp } from "./surfaces/git/git-http.js";
import { createHealthApp } from "./surfaces/health/app.js";
import { allowedMethodsOf } from "./surfaces/http/allowed-methods.js";
import { identifyClient } from "./surfaces/http/client-address.js";
import { throttleFailedCredentials } from "./surfaces/http/failed-credentials.js";
import { requestContext } from "./surfaces/http/request-context.js";
import { createSurface, type ServerEnv } from "./surfaces/http/surface.js";
import { createMcpApp } from "./surfaces/mcp/app.js";
import { MCP_PATH } from "./surfaces/mcp/wire.js";
import { createMembersApp } from "./surfaces/members/app.js";
import { createOAuthApp } from "./surfaces/oauth/app.js";
import { type AuthorizationServer, createAuthorizationServer } from "./surfaces/oauth/provider.js";
import { createOpenApiApp } from "./surfaces/openapi/app.js";
import { describeApp } from "./surfaces/openapi/document.js";
import { SECURITY_SCHEMES } from "./surfaces/openapi/schemas.js";
import { createOpsApp } from "./surfaces/ops/app.js";
import { createApprovalApp } from "./surfaces/pages/approval-app.js";
import { answerDashboardNotFound, createDashboardApp } from "./surfaces/pages/dashboard/app.js";
import { createInstallApp } from "./surfaces/pages/install/app.js";
import { createSignInApp } from "./surfaces/pages/sign-in-app.js";
import { createTokensPageApp } from "./surfaces/pages/tokens/app.js";
import { PAGE_PATHS, PAGES_BASE_PATH } from "./surfaces/pages/wire.js";
import { createProxyInternalApp } from "./surfaces/proxy-routes/app.js";
import { createWebhooksApp } from "./surfaces/webhooks/app.js";
import { WEBHOOKS_BASE_PATH } from "./surfaces/webhooks/wire.js";
import { WebhookWorker } from "./surfaces/webhooks/worker.js";

export interface ServerAppOptions {
  db: Store;
  /** Who this process is among the instances on the store; a new identity by default. */
  instance?: InstanceIdentity;
  logger: Logger;
  adminToken?: string | undefined;
  /** The listeners other machines may reach (`--host 0.0.0.0`); empty: loopback only, where weak seed tokens pass. */
  exposedListeners?: readonly string[] | undefined;
  now?: () => Date;
  activationDelayMs?: number;
  /** How long a claim on running work lasts without renewal (`--lease-seconds`); default 30 s. */
  lease?: LeaseSettings | undefined;
  capability?: CapabilitySettings | undefined;
  /**
   * The task engine's settings: where sandboxes and the local code host live (`workRoot`; a temporary folder,
   * removed on stop, when not given), the agent program, test hooks.
   */
  tasks?:
    | Partial<
        Omit<TaskServiceOptions, "db" | "now" | "logger" | "dashboardBase" | "serviceUrl" | "owner" | "lease">
      >
    | undefined;
  /** The operator's key for secret values (`--secret-key-file`). */
  secretBox: SecretBox;
  /** The real code host and tracker (`--codehost-*`, `--tracker-*`); default: the local adapters, no webhooks. */
  integrations?: IntegrationSettings | undefined;
  /** The code-host App's API (the GitHub adapter) when `--codehost-app-*` configure one; unset: local. */
  codehostApp?: CodehostAppApi | undefined;
  /** BATON_PROXY_TOKEN: enables the egress proxy's internal routes; unset, they answer 404. */
  proxyToken?: string | undefined;
  /** The egress proxy's URL given to sandboxes as BATON_PROXY_URL (`--proxy-url`). */
  proxyUrl?: string | undefined;
  /** `--trusted-proxy`: fronts of the public listener whose X-Forwarded-For names the client; default none. */
  trustedProxies?: TrustedProxies | undefined;
  /** The sandbox listener's URL once it listens: BATON_OPS_URL of sandboxes without a driver. */
  opsUrl?: (() => string | undefined) | undefined;
  /** Holds the sandbox manager when the service runs a sandbox driver (see ServerDeps.sandboxes). */
  sandboxes?: { current?: SandboxManager | undefined };
  /** Test seam: how the authorization server fetches client documents (see ServerDeps.oauthFetch). */
  oauthFetch?: ServerDeps["oauthFetch"];
  /** Dynamic client registration's bounds (see ServerDeps.oauthRegistrationLimits). */
  oauthRegistrationLimits?: ServerDeps["oauthRegistrationLimits"];
  /** The webhook queue's and the issue-reply outbox's first retry delay (tests make it short); default 1 s. */
  retryBaseMs?: number | undefined;
  /** Long-polls' fallback poll when no notification comes (BATON_WAKE_POLL_MS); default 2 s. */
  wakePollMs?: number | undefined;
  /** How long an instance's claim on a queued webhook delivery, issue reply or e-mail lasts unless renewed. */
  queueLeaseMs?: number | undefined;
}

export interface ServerApp {
  /** What each listener serves: `listeners.sandbox.fetch` for the forwarders' target, and so on. */
  listeners: ServerListeners;
  /**
   * Every surface in one handler, for in-process tests (`http.request(path, init)`) that reach several surfaces
   * without three sockets. Never served: a listener serves only its own surfaces.
   */
  http: OpenAPIHono<ServerEnv>;
  /** `http.fetch` for a ready Request. */
  handle: (request: Request) => Promise<Response>;
  deps: ServerDeps;
  /** Resets interrupted operations and resumes open ones. Call once the service is ready to serve. */
  start(): Promise<void>;
  /** Wakes long-polls, lets the operation in hand finish; the caller closes the database afterwards. */
  stop(): Promise<void>;
}

/**
 * The three listeners (DESIGN "Handlers and listeners"), each serving only its surfaces and answering 404 for
 * every other path: a box's forwarder reaches `sandbox` and nothing else, and the operator's surfaces sit on
 * `admin`, apart from the public API.
 */
export interface ServerListeners {
  /** `--host`/`--port`: the public API, member routes, `/openapi.json`, `/healthz`. */
  public: OpenAPIHono<ServerEnv>;
  /**
   * `--ops-listen`: the operations transport (`/ops/v1`) and the local code host's git route, which boxes clone
   * from with their lease. The box forwarders' target.
   */
  sandbox: OpenAPIHono<ServerEnv>;
  /** `--admin-listen`: the admin API and the internal routes `baton proxy` calls. */
  admin: OpenAPIHono<ServerEnv>;
}
export type ListenerName = keyof ServerListeners;

// biome-ignore lint/suspicious/noExplicitAny: a surface may carry variables of its own (the caller, the member)
type Mount = readonly [path: string, app: OpenAPIHono<ServerEnv<any>>];

/**
 * One listener's handler: its mounts, one error shape, one request id, the client's address (X-Forwarded-For
 * read only from `trusted` fronts), a 404/405 table of its own routes. A listener that serves the dashboard
 * answers a browser's GET of an unknown page under it with the dashboard's framed 404, not the API's JSON.
 */
function composeListener(
  deps: ServerDeps,
  mounts: readonly Mount[],
  throttle: ReturnType<typeof throttleFailedCredentials>,
  trusted: TrustedProxies = NO_TRUSTED_PROXIES,
  pages?: PagesNotFound,
): OpenAPIHono<ServerEnv> {
  const app = createSurface();
  app.use(requestContext(deps.logger));
  app.use(identifyClient(trusted));
  app.use(throttle);
  for (const [path, surface] of mounts) app.route(path, surface);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES))
    app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  app.onError(handleError(deps.logger));
  app.notFound(handleNotFound(allowedMethodsOf(app.routes), pages));
  return app;
}

/**
 * Every surface built once, then mounted on the listener that serves it. `all` holds every route in one handler:
 * the OpenAPI document describes it, and in-process tests call it to reach any surface without three sockets.
 * No listener serves `all`. Composing runs no route.
 */
export function composeListeners(
  deps: ServerDeps,
  rt: CapabilityRuntime,
): { listeners: ServerListeners; all: OpenAPIHono<ServerEnv> } {
  const health: Mount = ["/", createHealthApp()];
  const ops: Mount = [OPS_BASE_PATH, createOpsApp(deps, rt)];
  const admin: Mount = [ADMIN_BASE_PATH, createAdminApp(deps)];
  const sandboxAdmin: Mount = [ADMIN_BASE_PATH, createSandboxAdminApp(deps)];
  const taskAdmin: Mount = [ADMIN_BASE_PATH, createTaskAdminApp(deps)];
  const members: Mount = [MEMBER_BASE_PATH, createMembersApp(deps, rt)];
  const api: Mount = [API_BASE_PATH, createApiApp(deps)];
  const mcp: Mount = [MCP_PATH, createMcpApp(deps)];
  const proxyInternal: Mount = [PROXY_INTERNAL_BASE_PATH, createProxyInternalApp(deps)];
  const codehostGit: Mount = [CODEHOST_GIT_BASE_PATH, createCodehostGitApp(deps)];
  // The authorization server is made on first use (its issuer is the URL the service listens on).
  let authorizationServer: Promise<AuthorizationServer> | undefined;
  const authServer = () => {
    authorizationServer ??= createAuthorizationServer(deps);
    return authorizationServer;
  };
  const oauth: Mount = ["/", createOAuthApp(deps, authServer)];
  const approval: Mount = ["/", createApprovalApp(deps, authServer)];
  const signIn: Mount = ["/", createSignInApp(deps)];
  const tokensPage: Mount = [PAGE_PATHS.tokens, createTokensPageApp(deps)];
  const install: Mount = ["/", createInstallApp(deps)];
  const dashboard: Mount = ["/", createDashboardApp(deps, rt)];
  const dashboardNotFound: PagesNotFound = {
    base: PAGES_BASE_PATH,
    answer: (c) => answerDashboardNotFound(deps, c),
  };
  const webhooks: Mount = [WEBHOOKS_BASE_PATH, createWebhooksApp(deps)];
  // Each listener's `/openapi.json` describes its own routes only (issue 35 A.10: the public one never lists the
  // admin or internal routes); `all`'s describes every route, as openapi/baton-ops.json does. Made on first read.
  const describing = (listener: () => OpenAPIHono<ServerEnv>, name?: "public" | "operator"): Mount => {
    let document: Record<string, unknown> | undefined;
    return ["/", createOpenApiApp(() => (document ??= describeApp(listener(), name)))];
  };
  const openapi = describing(() => all);
  const listeners = {} as ServerListeners;
  // One throttle for the whole service: failures on any listener count against their source everywhere.
  const throttle = throttleFailedCredentials({
    logger: deps.logger,
    now: () => deps.now(),
    throttle: lazyCredentialThrottle(() => deps.db),
  });
  // The order of `all` is the published document's order.
  const all = composeListener(
    deps,
    [
      health,
      ops,
      admin,
      sandboxAdmin,
      taskAdmin,
      members,
      api,
      mcp,
      oauth,
      approval,
      signIn,
      proxyInternal,
      codehostGit,
      tokensPage,
      install,
      dashboard,
      webhooks,
      openapi,
    ],
    throttle,
    deps.trustedProxies,
    dashboardNotFound,
  );
  listeners.public = composeListener(
    deps,
    [
      health,
      members,
      api,
      mcp,
      oauth,
      approval,
      signIn,
      tokensPage,
      install,
      dashboard,
      webhooks,
      describing(() => listeners.public, "public"),
    ],
    throttle,
    // Only the public listener sits behind the operator's front; boxes and `baton proxy` reach the others
    // directly, so no header moves their requests to another source.
    deps.trustedProxies,
    dashboardNotFound,
  );
  // The sandbox listener serves no document (a box reaches nothing but its routes); the operator's, on the admin
  // listener, describes both listeners' routes, composed once more only to be described.
  const sandboxRoutes = [ops, codehostGit];
  const adminRoutes = [admin, sandboxAdmin, taskAdmin, proxyInternal];
  listeners.sandbox = composeListener(deps, sandboxRoutes, throttle);
  let operatorApp: OpenAPIHono<ServerEnv> | undefined;
  const operatorRoutes = () =>
    (operatorApp ??= composeListener(deps, [...sandboxRoutes, ...adminRoutes], throttle));
  listeners.admin = composeListener(deps, [...adminRoutes, describing(operatorRoutes, "operator")], throttle);
  return { all, listeners };
}

/** Every surface in one handler (see composeListeners): what the OpenAPI document describes. */
export function composeHttpApp(deps: ServerDeps, rt: CapabilityRuntime): OpenAPIHono<ServerEnv> {
  return composeListeners(deps, rt).all;
}

export function createServerApp(options: ServerAppOptions): ServerApp {
  const now = options.now ?? (() => new Date());
  const instance = options.instance ?? newInstanceIdentity();
  const lease = options.lease ?? { leaseMs: DEFAULT_LEASE_MS };
  const waiters = new OperationWaiters(options.db, options.wakePollMs);
  // Several instances share PostgreSQL: what only one of them can do is asked of it through the store.
  const relay =
    options.db.engine === "postgres"
      ? new InstanceRelay({
          db: options.db,
          me: instance,
          logger: options.logger,
          now,
          pollMs: options.wakePollMs ?? DEFAULT_WAKE_POLL_MS,
        })
      : undefined;
  const worker = new OperationWorker({
    db: options.db,
    now,
    logger: options.logger,
    owner: instance.id,
    lease,
    ...(options.activationDelayMs ? { activationDelayMs: options.activationDelayMs } : {}),
  });
  const stopHooks: (() => Promise<void>)[] = [];
  let workRoot = options.tasks?.workRoot;
  if (!workRoot) {
    const made = mkdtempSync(join(tmpdir(), "baton-work-"));
    workRoot = made;
    stopHooks.push(() => rm(made, { recursive: true, force: true }));
  }
  const integrations = options.integrations ?? LOCAL_INTEGRATIONS;
  // With an App configured (and no code host or App API given, as tests may), the GitHub adapter is both the
  // task engine's code host and the App API the install callback and the proxy's lease use.
  const github =
    integrations.codehost.app && !options.tasks?.codehost && !options.codehostApp
      ? createGithubCodehost({
          db: options.db,
          settings: integrations.codehost.app,
          logger: options.logger,
          now,
        })
      : undefined;
  const codehostApp = options.codehostApp ?? github;
  const trackerOAuth = integrations.tracker.oauth;
  const tasks = createTaskService({
    codehostPush: codehostPushOf(codehostApp, integrations.codehost.app),
    ...options.tasks,
    ...(github ? { codehost: github } : {}),
    // The OAuth application configured: the tracker is Linear (a test's own tracker still wins).
    ...(trackerOAuth && !options.tasks?.tracker
      ? {
          tracker: createLinearTracker({
            db: options.db,
            box: options.secretBox,
            settings: trackerOAuth,
            logger: options.logger,
            now,
            taskUrl: (workspaceId, taskId) =>
              `${dashboardBaseFor(options.capability)}/workspaces/${encodeURIComponent(workspaceId)}/tasks/${encodeURIComponent(taskId)}`,
          }),
        }
      : {}),
    db: options.db,
    now,
    logger: options.logger,
    owner: instance.id,
    lease,
    workRoot,
    dashboardBase: () => dashboardBaseFor(options.capability),
    // A task's sandbox without a driver reaches the service at the sandbox listener.
    serviceUrl: () => options.opsUrl?.() ?? "http://127.0.0.1",
  });
  const webhookWorker = new WebhookWorker({
    owner: instance.id,
    leaseMs: options.queueLeaseMs,
    db: options.db,
    now,
    logger: options.logger,
    commit: tasks.context.commit,
    apply: (delivery) =>
      applyIssueEvent(
        {
          ctx: tasks.context,
          codehost: tasks.codehost,
          tracker: tasks.tracker,
          settings: integrations,
          logger: options.logger,
          deliveryKey: deliveryKey(delivery.source, delivery.deliveryId),
        },
        delivery,
      ),
    retryBaseMs: options.retryBaseMs,
  });
  const replies = new IssueReplyWorker({
    owner: instance.id,
    leaseMs: options.queueLeaseMs,
    db: options.db,
    now,
    logger: options.logger,
    commit: tasks.context.commit,
    codehost: tasks.codehost,
    tracker: tasks.tracker,
    retryBaseMs: options.retryBaseMs,
  });
  const deps: ServerDeps = {
    db: options.db,
    instance,
    relay,
    queueLeaseMs: options.queueLeaseMs,
    webhooks: webhookWorker,
    now,
    logger: options.logger,
    worker,
    waiters,
    adminToken: options.adminToken,
    exposedListeners: options.exposedListeners,
    capability: options.capability,
    tasks,
    secretBox: options.secretBox,
    integrations,
    ...(codehostApp ? { codehostApp } : {}),
    proxyToken: options.proxyToken,
    proxyUrl: options.proxyUrl,
    trustedProxies: options.trustedProxies,
    opsUrl: options.opsUrl,
    onStop: (stop) => stopHooks.push(stop),
    sandboxes: options.sandboxes ?? {},
    ...(options.oauthFetch ? { oauthFetch: options.oauthFetch } : {}),
    ...(options.oauthRegistrationLimits ? { oauthRegistrationLimits: options.oauthRegistrationLimits } : {}),
  };
  if (relay) serveTurnAnswers(relay, deps);
  const { listeners, all: http } = composeListeners(deps, startCapabilityRuntime(deps));
  return {
    listeners,
    http,
    handle: async (request) => http.fetch(request),
    deps,
    start: async () => {
      await relay?.start();
      await worker.recover();
      await tasks.start();
      // After the task engine: recovered deliveries and replies act on a running engine.
      webhookWorker.start();
      replies.start();
    },
    stop: async () => {
      // First: a request taken now would meet a task engine or sandbox manager that is stopping.
      await relay?.stop();
      // Before the task engine: no delivery is applied to an engine that is stopping.
      await webhookWorker.stop();
      await replies.stop();
      await tasks.stop();
      waiters.wakeAll();
      await worker.stop();
      waiters.wakeAll();
      await Promise.all(stopHooks.map((stop) => stop()));
    },
  };
}
