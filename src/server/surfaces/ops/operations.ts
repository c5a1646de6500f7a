// The operations transport: start an activation, read it (optionally long-polling), fetch its overlay.
import { createRoute, z } from "@hono/zod-openapi";
import {
  HEADERS,
  IdempotencyKeySchema,
  MAX_WAIT_MS,
  QUERY,
  TERMINAL_OPERATION_STATES,
  WIRE_ERRORS,
} from "../../../transport/wire.js";
import type { Caller } from "../../domain/auth/authenticate.js";
import { loadOverlay } from "../../domain/operations/engagement-state.js";
import { startOperation } from "../../domain/operations/start-operation.js";
import { getOperation, type OperationRow, toWireOperation } from "../../store/operations.js";
import { HttpError, notFound } from "../http/http-error.js";
import { jsonBody, KiB } from "../http/json-body.js";
import { createSurface, openapiWithHeaders } from "../http/surface.js";
import { errorResponses, jsonContent, pathParam, Schemas as S, SECURITY } from "../openapi/schemas.js";
import type { OpsDeps } from "./deps.js";
import { sandboxAuth } from "./sandbox-auth.js";

const ERRORS = {
  400: "invalid_request, invalid_idempotency_key or invalid_repo",
  401: "invalid_token: turn token or lease missing, unknown, expired, or of different engagements",
  403: "rollout_disabled: the workspace has no repository-environments rollout",
  404: "not_found: no such thing, or not the caller's (never 403)",
  409: "idempotency_conflict or operation_not_succeeded",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
};
const pick = <K extends keyof typeof ERRORS>(...statuses: K[]) =>
  errorResponses(Object.fromEntries(statuses.map((s) => [s, ERRORS[s]])) as Record<K, string>);

// `toWireOperation` types `result.managedStartup` as unknown (older rows); what the worker writes is the current
// handoff, which is what the document declares.
const served = (row: OperationRow) => toWireOperation(row) as z.infer<typeof S.Operation>;

export function operationRoutes(deps: OpsDeps) {
  const app = createSurface<{ caller: Caller }>();
  const ownOperation = async (who: Caller, id: string): Promise<OperationRow> => {
    const row = await getOperation(deps.db, id);
    // Another engagement's operation is indistinguishable from one that does not exist.
    if (!row || row.engagement_id !== who.engagementId) throw notFound("no such operation");
    return row;
  };

  openapiWithHeaders(
    app,
    createRoute({
      method: "post",
      path: "/operations",
      summary: "start an operation (env.activate); a repeated Idempotency-Key returns the first operation",
      security: SECURITY.sandbox,
      middleware: [
        sandboxAuth(deps, { deferActivity: true }),
        ...jsonBody("operation request", 16 * KiB),
      ] as const,
      request: {
        headers: z.object({ [HEADERS.idempotencyKey]: IdempotencyKeySchema }),
        body: { required: true, ...jsonContent(S.StartOperationBody, "what to run") },
      },
      responses: {
        202: jsonContent(
          S.StartOperationAnswer,
          "accepted. When the engagement had no other open operation the activation ran before this answer and `state` is terminal (succeeded or failed): skip the poll. A succeeded answer carries the overlay: skip fetching it too. Otherwise pending. A repeated key answers the first operation as it is now",
        ),
        ...pick(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      // Terminal when the engagement's queue was idle: the activation committed before this answer.
      const { row, overlay } = await startOperation(
        deps,
        c.var.caller,
        c.req.valid("header")[HEADERS.idempotencyKey],
        c.req.valid("json"),
        c.var.requestId,
      );
      return c.json(overlay ? { ...served(row), overlay } : served(row), 202);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/operations/{id}",
      summary: "read an operation; with waitMs, wait until its state changes or the time passes",
      security: SECURITY.sandbox,
      // Reading state only: expired credentials still see their own operation (see authenticate.ts).
      middleware: [sandboxAuth(deps, { allowExpired: true })] as const,
      request: {
        params: z.object({ id: pathParam() }),
        query: z.object({
          [QUERY.waitMs]: z.coerce
            .number({ error: "must be a whole number of milliseconds" })
            .int("must be a whole number of milliseconds")
            .min(0, "must be a whole number of milliseconds")
            .optional()
            .describe(`capped at ${MAX_WAIT_MS}`),
        }),
      },
      responses: { 200: jsonContent(S.Operation, "the operation"), ...pick(400, 401, 403, 404) },
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const waitMs = Math.min(c.req.valid("query")[QUERY.waitMs] ?? 0, MAX_WAIT_MS);
      const first = await ownOperation(c.var.caller, id);
      if (waitMs === 0 || TERMINAL_OPERATION_STATES.has(first.state)) return c.json(served(first), 200);
      // Rows are never deleted: the operation read above is still there.
      const current = await deps.waiters.waitForState(id, first.state, waitMs, c.req.raw.signal);
      return c.json(served(current ?? first), 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/operations/{id}/overlay",
      summary: "the overlay document a succeeded activation produced; only for the sandbox that started it",
      security: SECURITY.sandbox,
      middleware: [sandboxAuth(deps)] as const,
      request: { params: z.object({ id: pathParam() }) },
      responses: {
        200: jsonContent(S.Overlay, "the overlay (secrets as placeholders)"),
        ...pick(401, 403, 404, 409),
      },
    }),
    async (c) => {
      const who = c.var.caller;
      const row = await ownOperation(who, c.req.valid("param").id);
      // Only the sandbox that asked for the activation receives its overlay.
      if (row.sandbox_id !== who.sandboxId) throw notFound("no such operation");
      if (row.state !== "succeeded" || row.overlay_revision === null) {
        throw new HttpError(
          409,
          WIRE_ERRORS.operationNotSucceeded,
          `operation is ${row.state}; fetch the overlay once it has succeeded`,
        );
      }
      const overlay = await loadOverlay(deps.db, row.engagement_id, row.overlay_revision);
      if (!overlay) throw notFound("no such overlay");
      return c.json(overlay, 200);
    },
  );
  return app;
}
