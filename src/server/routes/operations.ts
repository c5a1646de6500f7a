// The operations transport: start an activation, read it (optionally long-polling), fetch its overlay.
import { createHash } from "node:crypto";
import { z } from "zod";
import {
  HEADERS,
  IdempotencyKeySchema,
  MAX_WAIT_MS,
  QUERY,
  ROUTE_PATTERNS,
  StartOperationBodySchema,
  TERMINAL_OPERATION_STATES,
  WIRE_ERRORS,
} from "../../transport/wire.js";
import { authenticate, type Caller, requireRollout } from "../auth/authenticate.js";
import { newId } from "../auth/tokens.js";
import type { ServerDeps } from "../deps.js";
import { HttpError, invalidRequest, notFound } from "../http/http-error.js";
import { json, readJsonBody } from "../http/json.js";
import type { Route, RouteContext } from "../http/router.js";
import { loadOverlay } from "../store/engagement-state.js";
import { getOperation, insertOperation, type OperationRow, toWireOperation } from "../store/operations.js";
import { inTransaction } from "../store/transaction.js";

const WaitMsSchema = z.coerce.number().int().min(0);

export function operationRoutes(deps: ServerDeps): Route[] {
  const caller = (context: RouteContext, options: { allowExpired?: boolean } = {}): Caller => {
    const found = authenticate(deps.db, context.request.headers, deps.now().getTime(), options);
    requireRollout(found);
    return found;
  };
  const ownOperation = (who: Caller, id: string): OperationRow => {
    const row = getOperation(deps.db, id);
    // Another engagement's operation is indistinguishable from one that does not exist.
    if (!row || row.engagement_id !== who.engagementId) throw notFound("no such operation");
    return row;
  };

  return [
    {
      method: "POST",
      pattern: ROUTE_PATTERNS.operations,
      handle: async (context) => {
        const who = caller(context);
        const key = IdempotencyKeySchema.safeParse(context.request.headers.get(HEADERS.idempotencyKey) ?? "");
        if (!key.success) {
          throw new HttpError(
            400,
            WIRE_ERRORS.invalidIdempotencyKey,
            "the Idempotency-Key header must be 1 to 128 printable ASCII characters, no spaces",
          );
        }
        const body = await readJsonBody(context.request, StartOperationBodySchema, "operation request");
        const requestHash = createHash("sha256")
          .update(JSON.stringify([body.kind, body.repository]))
          .digest("hex");
        const outcome = inTransaction(deps.db, () =>
          startOperation(deps, who, key.data, requestHash, body, context.requestId),
        );
        if (outcome.created) deps.worker.kick(who.engagementId);
        return json(202, toWireOperation(outcome.row));
      },
    },
    {
      method: "GET",
      pattern: ROUTE_PATTERNS.operation,
      handle: async (context) => {
        // Reading state only: expired credentials still see their own operation (see authenticate.ts).
        const who = caller(context, { allowExpired: true });
        const rawWait = context.url.searchParams.get(QUERY.waitMs);
        let waitMs = 0;
        if (rawWait !== null) {
          const parsed = WaitMsSchema.safeParse(rawWait);
          if (!parsed.success) throw invalidRequest(`${QUERY.waitMs} must be a whole number of milliseconds`);
          waitMs = Math.min(parsed.data, MAX_WAIT_MS);
        }
        const id = context.params.id!;
        const first = ownOperation(who, id);
        if (waitMs === 0 || TERMINAL_OPERATION_STATES.has(first.state))
          return json(200, toWireOperation(first));
        // Register before re-reading so a change committed in between still wakes us.
        const waiter = deps.waiters.wait(id, waitMs, context.request.signal);
        const current = getOperation(deps.db, id)!;
        if (current.state !== first.state) {
          waiter.cancel();
          return json(200, toWireOperation(current));
        }
        await waiter.done;
        return json(200, toWireOperation(getOperation(deps.db, id)!));
      },
    },
    {
      method: "GET",
      pattern: ROUTE_PATTERNS.operationOverlay,
      handle: (context) => {
        const who = caller(context);
        const row = ownOperation(who, context.params.id!);
        // Only the sandbox that asked for the activation receives its overlay.
        if (row.sandbox_id !== who.sandboxId) throw notFound("no such operation");
        if (row.state !== "succeeded" || row.overlay_revision === null) {
          throw new HttpError(
            409,
            WIRE_ERRORS.operationNotSucceeded,
            `operation is ${row.state}; fetch the overlay once it has succeeded`,
          );
        }
        const overlay = loadOverlay(deps.db, row.engagement_id, row.overlay_revision);
        if (!overlay) throw notFound("no such overlay");
        return json(200, overlay);
      },
    },
  ];
}

function startOperation(
  deps: ServerDeps,
  who: Caller,
  key: string,
  requestHash: string,
  body: { kind: "env.activate"; repository: string },
  requestId: string,
): { row: OperationRow; created: boolean } {
  const { db } = deps;
  const previous = db
    .prepare(
      "SELECT request_hash, operation_id FROM idempotency_records WHERE sandbox_id = ? AND idempotency_key = ?",
    )
    .get(who.sandboxId, key) as { request_hash: string; operation_id: string } | undefined;
  if (previous) {
    if (previous.request_hash !== requestHash) {
      throw new HttpError(
        409,
        WIRE_ERRORS.idempotencyConflict,
        "this Idempotency-Key was already used for a different request; use a new key",
      );
    }
    return { row: getOperation(db, previous.operation_id)!, created: false };
  }
  const repo = db
    .prepare("SELECT id, connected FROM repositories WHERE workspace_id = ? AND slug = ?")
    .get(who.workspaceId, body.repository) as { id: string; connected: number } | undefined;
  if (!repo) throw notFound(`no repository ${body.repository} in this workspace`);
  if (repo.connected !== 1) {
    throw new HttpError(
      400,
      WIRE_ERRORS.invalidRepo,
      `${body.repository} is not connected to the workspace; ask an owner or admin to connect it`,
    );
  }
  const now = deps.now();
  const row = insertOperation(
    db,
    {
      id: newId("op"),
      kind: body.kind,
      workspace_id: who.workspaceId,
      engagement_id: who.engagementId,
      sandbox_id: who.sandboxId,
      turn_id: who.turnId,
      repository_id: repo.id,
      repository: body.repository,
    },
    now,
  );
  db.prepare(
    "INSERT INTO idempotency_records (sandbox_id, idempotency_key, request_hash, operation_id, created_at) VALUES (?, ?, ?, ?, ?)",
  ).run(who.sandboxId, key, requestHash, row.id, now.toISOString());
  deps.logger.debug({ requestId, operationId: row.id, repository: body.repository }, "operation accepted");
  return { row, created: true };
}
