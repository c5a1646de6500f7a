// The sandbox manager's admin routes (header `baton-admin-token`), mounted beside the admin app: list and read
// sandboxes with their lifecycle transitions, run a command in one, send it a lifecycle event, delete it
// (ownership checked), run a sweep. 404 when the service runs without a driver (`--sandbox-driver none`).
import { createRoute, z } from "@hono/zod-openapi";
import type { SandboxManager } from "../../adapters/sandboxes/manager.js";
import { mapDomainErrors } from "../http/domain-errors.js";
import { notFound } from "../http/http-error.js";
import { jsonBody, KiB, MiB } from "../http/json-body.js";
import { createSurface } from "../http/surface.js";
import { errorResponses, jsonContent, pathParam, Schemas as S, SECURITY } from "../openapi/schemas.js";
import { adminAuth } from "./app.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_DOMAIN_ANSWERS } from "./domain-errors.js";
import { sandboxHttpError } from "./sandbox-errors.js";

const ERRORS = errorResponses({
  400: "invalid_request: the body or query names the field to fix",
  401: "invalid_token: the admin token is missing or wrong",
  404: "not_found: no such sandbox in that workspace and engagement, or no sandbox driver",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
  503: "owner_unreachable: another instance runs the box and cannot be reached now (stopped, killed or stalled); the reason names it",
});
const idParams = z.object({ id: pathParam() });
const ownerQuery = z.object({ workspaceId: z.string().min(1), engagementId: z.string().min(1) });

export function createSandboxAdminApp(deps: AdminDeps) {
  const app = createSurface();
  app.onError(mapDomainErrors(ADMIN_DOMAIN_ANSWERS));
  const admin = adminAuth(deps);
  /** The manager, or 404 as if the route did not exist when the service runs without a driver. */
  const managerOf = (): SandboxManager => {
    const manager = deps.sandboxes?.current;
    if (!manager) throw notFound("no such route: start baton serve with --sandbox-driver docker|namespace");
    return manager;
  };
  const mapped = async <T>(work: () => Promise<T> | T): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw sandboxHttpError(error);
    }
  };
  const body = <B extends z.ZodType>(schema: B, description: string) => ({
    body: { required: true, ...jsonContent(schema, description) },
  });

  app.openapi(
    createRoute({
      method: "get",
      path: "/sandboxes",
      summary: "list sandboxes with a box (with --sandbox-driver)",
      security: SECURITY.admin,
      middleware: [admin] as const,
      request: { query: z.object({ workspaceId: z.string().min(1).optional() }) },
      responses: { 200: jsonContent(S.SandboxList, "the sandboxes"), ...ERRORS },
    }),
    async (c) => {
      const manager = managerOf();
      return c.json(
        { driver: manager.driverName, sandboxes: await manager.list(c.req.valid("query").workspaceId) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/sandboxes/{id}",
      summary: "one sandbox with every lifecycle transition",
      security: SECURITY.admin,
      middleware: [admin] as const,
      request: { params: idParams },
      responses: { 200: jsonContent(S.Sandbox, "the sandbox"), ...ERRORS },
    }),
    async (c) => {
      const view = await managerOf().show(c.req.valid("param").id);
      if (!view) throw notFound("no such sandbox");
      return c.json(view, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandboxes/{id}",
      summary: "delete a sandbox and its box (another workspace's or engagement's is 404)",
      security: SECURITY.admin,
      middleware: [admin] as const,
      request: { params: idParams, query: ownerQuery },
      responses: { 200: jsonContent(S.SandboxTransitionResponse, "deleted"), ...ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const manager = managerOf();
      const transition = await mapped(() => manager.remove(id, c.req.valid("query")));
      return c.json({ transition, sandbox: await manager.show(id) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/sandboxes/{id}/exec",
      summary: "run a command in the box (activity: a stopped or archived box starts first)",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("exec request", 1 * MiB)] as const,
      request: { params: idParams, ...body(S.SandboxExecBody, "the owner, the argv and its time limit") },
      responses: { 200: jsonContent(S.SandboxExecResponse, "the command's result"), ...ERRORS },
    }),
    async (c) => {
      const request = c.req.valid("json");
      const result = await mapped(() =>
        managerOf().exec(c.req.valid("param").id, request, request.command, {
          timeoutMs: request.timeoutSeconds * 1000,
          ...(request.env ? { env: request.env } : {}),
          ...(request.cwd ? { cwd: request.cwd } : {}),
          ...(request.stdin !== undefined ? { stdin: request.stdin } : {}),
        }),
      );
      return c.json(result, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/sandboxes/{id}/copy-out",
      summary: "copy a file or folder of the box's home or /tmp out, as a tar archive",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("copy-out request", 8 * KiB)] as const,
      request: { params: idParams, ...body(S.SandboxCopyOutBody, "the owner and the path in the box") },
      responses: {
        200: {
          description: "a tar archive holding the file or folder under its own name",
          content: { "application/x-tar": { schema: z.string().meta({ format: "binary" }) } },
        },
        ...ERRORS,
      },
    }),
    async (c) => {
      const request = c.req.valid("json");
      const archive = await mapped(() =>
        managerOf().copyOutArchive(c.req.valid("param").id, request, request.path),
      );
      return c.body(new Uint8Array(archive), 200, { "content-type": "application/x-tar" });
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/sandboxes/{id}/events",
      summary: "work finished (stop) or a terminal cancellation (archive at once)",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("sandbox event", 4 * KiB)] as const,
      request: { params: idParams, ...body(S.SandboxEventBody, "the owner and the event") },
      responses: { 200: jsonContent(S.SandboxTransitionResponse, "the transition, if any"), ...ERRORS },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const request = c.req.valid("json");
      const manager = managerOf();
      const transition = await mapped(() =>
        request.event === "work_finished" ? manager.finishWork(id, request) : manager.cancel(id, request),
      );
      return c.json({ transition, sandbox: await manager.show(id) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/sandbox-sweeps",
      summary: "run the lifecycle sweep (idle stop, archive) or the daily cleanup now",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("sweep request", 1 * KiB)] as const,
      request: body(S.SandboxSweepBody, "which sweep"),
      responses: { 200: jsonContent(S.SandboxSweepResponse, "the transitions made"), ...ERRORS },
    }),
    async (c) => {
      const manager = managerOf();
      const transitions =
        c.req.valid("json").kind === "sweep" ? await manager.sweep() : await manager.cleanup();
      return c.json({ transitions }, 200);
    },
  );
  return app;
}
