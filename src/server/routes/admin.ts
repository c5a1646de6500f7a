// The admin API (header `baton-admin-token`): seed, sandboxes with their lease and first turn, follow-up turns,
// repository disconnection. Disabled (404) when the service has no admin token.

import { InputError } from "../../errors.js";
import {
  ADMIN_PATHS,
  CreateSandboxBodySchema,
  CreateTurnBodySchema,
  DisconnectRepositoryBodySchema,
  HEADERS,
  WIRE_ERRORS,
} from "../../transport/wire.js";
import { credentialMatches } from "../auth/tokens.js";
import type { ServerDeps } from "../deps.js";
import { HttpError, invalidToken, notFound } from "../http/http-error.js";
import { json, readJsonBody } from "../http/json.js";
import type { Route, RouteContext } from "../http/router.js";
import { reserveDisconnected } from "../operations/activate.js";
import { applySeed } from "../seed/apply-seed.js";
import { SeedDocumentSchema } from "../seed/schema.js";
import { type CredentialFailure, issueSandbox, issueTurn } from "../store/credentials.js";
import { inTransaction } from "../store/transaction.js";

const FAILURES: Record<CredentialFailure, HttpError> = {
  workspace_not_found: new HttpError(404, WIRE_ERRORS.notFound, "no such workspace; seed it first"),
  engagement_not_found: new HttpError(
    404,
    WIRE_ERRORS.notFound,
    "no such engagement; create a sandbox for it first",
  ),
  engagement_elsewhere: new HttpError(
    409,
    "conflict",
    "that engagement id belongs to another workspace; pick another id",
  ),
};

export function adminRoutes(deps: ServerDeps): Route[] {
  const admin = (handle: (context: RouteContext) => Promise<Response>) => async (context: RouteContext) => {
    if (deps.adminToken === undefined) throw notFound("no such route");
    const presented = context.request.headers.get(HEADERS.adminToken);
    if (!presented || !credentialMatches(presented, deps.adminToken))
      throw invalidToken("the admin token is missing or wrong");
    return handle(context);
  };

  return [
    {
      method: "POST",
      pattern: ADMIN_PATHS.seed,
      handle: admin(async ({ request }) => {
        const seed = await readJsonBody(request, SeedDocumentSchema, "seed document");
        try {
          applySeed(deps.db, seed, deps.now());
        } catch (error) {
          if (error instanceof InputError) throw new HttpError(409, "conflict", error.message);
          throw error;
        }
        return json(200, { ok: true });
      }),
    },
    {
      method: "POST",
      pattern: ADMIN_PATHS.sandboxes,
      handle: admin(async ({ request, url }) => {
        const body = await readJsonBody(request, CreateSandboxBodySchema, "sandbox request");
        const issued = issueSandbox(deps.db, body, deps.now());
        if (typeof issued === "string") throw FAILURES[issued];
        return json(201, {
          ...issued,
          env: {
            BATON_OPS_URL: url.origin,
            BATON_TURN_TOKEN: issued.turnToken,
            BATON_SANDBOX_LEASE: issued.lease,
          },
        });
      }),
    },
    {
      method: "POST",
      pattern: ADMIN_PATHS.turns,
      handle: admin(async ({ request }) => {
        const body = await readJsonBody(request, CreateTurnBodySchema, "turn request");
        const issued = issueTurn(deps.db, body, deps.now());
        if (typeof issued === "string") throw FAILURES[issued];
        return json(201, issued);
      }),
    },
    {
      method: "POST",
      pattern: ADMIN_PATHS.disconnectRepository,
      handle: admin(async ({ request }) => {
        const body = await readJsonBody(request, DisconnectRepositoryBodySchema, "disconnect request");
        const found = inTransaction(deps.db, () => {
          const changed = deps.db
            .prepare("UPDATE repositories SET connected = 0 WHERE workspace_id = ? AND slug = ?")
            .run(body.workspaceId, body.repository);
          if (changed.changes === 0) return false;
          // Its names stay reserved in every engagement of the workspace, never handed to another repository.
          const engagements = deps.db
            .prepare("SELECT id FROM engagements WHERE workspace_id = ?")
            .all(body.workspaceId) as {
            id: string;
          }[];
          for (const e of engagements) reserveDisconnected(deps.db, e.id, body.workspaceId);
          return true;
        });
        if (!found) throw notFound("no such repository in that workspace");
        return json(200, { ok: true });
      }),
    },
  ];
}
