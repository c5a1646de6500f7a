// The admin API (header `baton-admin-token`): seed, sandboxes with their lease and first turn, follow-up turns,
// repository disconnection. Disabled (404, as if it did not exist) when the service has no admin token.
import { createRoute, type z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { ADMIN_ACTOR, AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import { InputError } from "../../../errors.js";
import { HEADERS, NO_SUCH_ROUTE, WIRE_ERRORS } from "../../../transport/wire.js";
import { type CredentialFailure, issueSandbox, issueTurn } from "../../adapters/sandboxes/credentials.js";
import { createPersonalToken } from "../../domain/auth/personal-tokens-store.js";
import { findUserByEmail } from "../../domain/auth/users.js";
import { reserveDisconnected } from "../../domain/operations/activate.js";
import { applySeed } from "../../domain/seed/apply-seed.js";
import { weakSeedTokenRefusal, weakSeedTokens } from "../../domain/seed/weak-tokens.js";
import { promote } from "../../domain/tasks/engine.js";
import { credentialMatches } from "../../primitives/tokens.js";
import { mapDomainErrors } from "../http/domain-errors.js";
import { HttpError, invalidRequest, invalidToken, notFound } from "../http/http-error.js";
import { jsonBody, KiB, MiB } from "../http/json-body.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import { errorResponses, jsonContent, Schemas as S, SECURITY } from "../openapi/schemas.js";
import type { AdminDeps } from "./deps.js";
import { ADMIN_DOMAIN_ANSWERS } from "./domain-errors.js";
import { sandboxHttpError } from "./sandbox-errors.js";

const FAILURES: Record<CredentialFailure, HttpError> = {
  workspace_not_found: new HttpError(404, WIRE_ERRORS.notFound, "no such workspace; seed it first"),
  engagement_not_found: new HttpError(
    404,
    WIRE_ERRORS.notFound,
    "no such engagement; create a sandbox for it first",
  ),
  engagement_elsewhere: new HttpError(
    409,
    WIRE_ERRORS.conflict,
    "that engagement id belongs to another workspace; pick another id",
  ),
};

const ERRORS = errorResponses({
  400: "invalid_request: the body names the field to fix",
  401: "invalid_token: the admin token is missing or wrong",
  404: "not_found: no such workspace, engagement or repository (or the admin API is disabled)",
  409: "conflict",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
});
/** A seed document carries every workspace, repository and secret value at once. */
const SEED_LIMIT = 8 * MiB;
const SMALL_BODY = 16 * KiB;

/** The admin token check every admin route runs first (404 when the service has no admin token). */
export function adminAuth(deps: AdminDeps) {
  return createMiddleware<ServerEnv>(async (c, next) => {
    if (deps.adminToken === undefined) throw notFound(NO_SUCH_ROUTE);
    const presented = c.req.header(HEADERS.adminToken);
    if (!presented || !credentialMatches(presented, deps.adminToken))
      throw invalidToken("the admin token is missing or wrong");
    await next();
    logAuditEvent(deps.logger, AUDIT_EVENTS.adminCall, {
      requestId: c.get("requestId"),
      actor: ADMIN_ACTOR,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
    });
  });
}

type SandboxResponseEnv = z.infer<typeof S.CreateSandboxResponse>["env"];

/** `.batonrc.json` travels in the sandbox request when the repository is known but no checkout is given. */
const SANDBOX_BODY = 128 * KiB;

export function createAdminApp(deps: AdminDeps) {
  const app = createSurface();
  app.onError(mapDomainErrors(ADMIN_DOMAIN_ANSWERS));
  const admin = adminAuth(deps);
  const body = <B extends z.ZodType>(schema: B, description: string) => ({
    body: { required: true, ...jsonContent(schema, description) },
  });

  app.openapi(
    createRoute({
      method: "post",
      path: "/seed",
      summary: "load a seed document",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("seed document", SEED_LIMIT)] as const,
      request: body(S.SeedDocument, "the seed document"),
      responses: { 200: jsonContent(S.Ok, "done"), ...ERRORS },
    }),
    async (c) => {
      const seed = c.req.valid("json");
      // The rule `baton serve --seed` follows: guessable member tokens only on a loopback-only service.
      const refusal = weakSeedTokenRefusal("document", weakSeedTokens(seed), deps.exposedListeners ?? []);
      if (refusal) throw new HttpError(409, WIRE_ERRORS.conflict, refusal);
      try {
        await applySeed(deps.db, seed, deps.now(), deps.secretBox, deps.logger);
      } catch (error) {
        if (error instanceof InputError) throw new HttpError(409, WIRE_ERRORS.conflict, error.message);
        throw error;
      }
      return c.json({ ok: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/sandboxes",
      summary:
        "create a sandbox lease and a turn; with a sandbox driver, provision a real box (or reuse the engagement's)",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("sandbox request", SANDBOX_BODY)] as const,
      request: body(
        S.CreateSandboxBody,
        "the workspace and engagement, optional lifetimes; with a driver, more",
      ),
      responses: {
        201: jsonContent(S.CreateSandboxResponse, "created"),
        200: jsonContent(S.CreateSandboxResponse, "the engagement's box reused (a fresh lease, a new turn)"),
        ...ERRORS,
      },
    }),
    async (c) => {
      const request = c.req.valid("json");
      const manager = deps.sandboxes?.current;
      if (manager) {
        // A real box (`--sandbox-driver docker|namespace`): its variables point at the addresses it can reach.
        if (request.checkout && !request.repository)
          throw invalidRequest("checkout needs repository (owner/name)");
        const made = await manager.provision(request).catch((error: unknown) => {
          throw sandboxHttpError(error);
        });
        return c.json(
          { ...made.issued, env: made.env as SandboxResponseEnv, sandbox: made.box, reused: made.reused },
          made.reused ? 200 : 201,
        );
      }
      if (request.sandboxId || request.checkout || request.batonrc !== undefined || request.image)
        throw invalidRequest(
          "sandboxId, checkout, batonrc and image need a sandbox driver: start baton serve with --sandbox-driver docker|namespace",
        );
      const issued = await issueSandbox(deps.db, request, deps.now());
      if (typeof issued === "string") throw FAILURES[issued];
      const env = {
        // The sandbox listener (a box reaches nothing else); in-process, without one, the caller's origin.
        BATON_OPS_URL: deps.opsUrl?.() ?? new URL(c.req.url).origin,
        BATON_TURN_TOKEN: issued.turnToken,
        BATON_SANDBOX_LEASE: issued.lease,
        ...(deps.proxyUrl ? { BATON_PROXY_URL: deps.proxyUrl } : {}),
      };
      return c.json({ ...issued, env }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/turns",
      summary: "issue a follow-up turn",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("turn request", SMALL_BODY)] as const,
      request: body(S.CreateTurnBody, "the engagement, optional lifetime"),
      responses: { 201: jsonContent(S.CreateTurnResponse, "done"), ...ERRORS },
    }),
    async (c) => {
      const issued = await issueTurn(deps.db, c.req.valid("json"), deps.now());
      if (typeof issued === "string") throw FAILURES[issued];
      return c.json(issued, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/repositories/disconnect",
      summary: "disconnect a repository",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("disconnect request", SMALL_BODY)] as const,
      request: body(S.DisconnectRepositoryBody, "the workspace and repository"),
      responses: { 200: jsonContent(S.Ok, "done"), ...ERRORS },
    }),
    async (c) => {
      if (!(await disconnectRepository(deps, c.req.valid("json"))))
        throw notFound("no such repository in that workspace");
      return c.json({ ok: true as const }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "post",
      path: "/tokens",
      summary:
        "create a personal access token for a member (30, 90 or 365 days); the answer is the only time it is shown",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("token request", SMALL_BODY)] as const,
      request: body(S.CreateTokenBody, "the member's e-mail, a name, the lifetime in days"),
      responses: { 201: jsonContent(S.CreateTokenResponse, "the token, shown once"), ...ERRORS },
    }),
    async (c) => {
      const input = c.req.valid("json");
      if (!(await findUserByEmail(deps.db, input.email)))
        throw notFound("no member with that e-mail; add them to a workspace first");
      const created = await createPersonalToken(deps.db, input, deps.now());
      logAuditEvent(deps.logger, AUDIT_EVENTS.tokenCreated, {
        requestId: c.get("requestId"),
        actor: ADMIN_ACTOR,
        tokenId: created.id,
        owner: created.email,
        name: created.name,
        expiresAt: created.expiresAt,
      });
      return c.json(created, 201);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/workspaces/billing",
      summary: "set a workspace's billing state (inactive: starts refused, turns pause)",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("billing request", SMALL_BODY)] as const,
      request: body(S.SetBillingBody, "the workspace and its billing state"),
      responses: { 200: jsonContent(S.Ok, "done"), ...ERRORS },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const changed = await deps.db.run("UPDATE workspaces SET billing_state = ? WHERE id = ?", [
        input.state,
        input.workspaceId,
      ]);
      if (changed.changes === 0) throw notFound("no such workspace");
      return c.json({ ok: true as const }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/workspaces/plan",
      summary: "set a workspace's plan: running turns (concurrency) and queue places (queueSize)",
      security: SECURITY.admin,
      middleware: [admin, ...jsonBody("plan request", SMALL_BODY)] as const,
      request: body(S.SetPlanBody, "the workspace and its plan"),
      responses: { 200: jsonContent(S.Ok, "done"), ...ERRORS },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const changed = await deps.db.transaction(async () => {
        const result = await deps.db.run(
          "UPDATE workspaces SET plan_name = coalesce(?, plan_name), plan_concurrency = ?, plan_queue_size = ? WHERE id = ?",
          [input.name ?? null, input.concurrency, input.queueSize, input.workspaceId],
        );
        // A larger plan starts queued turns at once.
        return result.changes > 0 ? promote(deps.db, input.workspaceId) : null;
      });
      if (changed === null) throw notFound("no such workspace");
      deps.tasks.context.runTurns(changed);
      return c.json({ ok: true as const }, 200);
    },
  );
  return app;
}

/** Marks the repository disconnected; its names stay reserved in every engagement of the workspace. */
async function disconnectRepository(
  deps: AdminDeps,
  body: { workspaceId: string; repository: string },
): Promise<boolean> {
  return await deps.db.transaction(async () => {
    const changed = await deps.db.run(
      "UPDATE repositories SET connected = 0 WHERE workspace_id = ? AND slug = ?",
      [body.workspaceId, body.repository],
    );
    if (changed.changes === 0) return false;
    const engagements = (await deps.db.all("SELECT id FROM engagements WHERE workspace_id = ?", [
      body.workspaceId,
    ])) as {
      id: string;
    }[];
    for (const e of engagements) await reserveDisconnected(deps.db, e.id, body.workspaceId);
    return true;
  });
}
