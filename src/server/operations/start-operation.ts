// Accepting an operation: a repeated Idempotency-Key from the same sandbox returns the first operation (the same
// request) or a conflict (a different one); otherwise the repository is checked and a `pending` row committed.
import { createHash } from "node:crypto";
import { type StartOperationBody, WIRE_ERRORS } from "../../transport/wire.js";
import type { Caller } from "../auth/authenticate.js";
import { newId } from "../auth/tokens.js";
import type { ServerDeps } from "../deps.js";
import { HttpError, notFound } from "../http/http-error.js";
import { getOperation, insertOperation, type OperationRow } from "../store/operations.js";
import { inTransaction } from "../store/transaction.js";

export function startOperation(
  deps: ServerDeps,
  who: Caller,
  key: string,
  body: StartOperationBody,
  requestId: string,
): { row: OperationRow; created: boolean } {
  const requestHash = createHash("sha256")
    .update(JSON.stringify([body.kind, body.repository]))
    .digest("hex");
  const outcome = inTransaction(deps.db, () => insertOnce(deps, who, key, requestHash, body, requestId));
  if (outcome.created) deps.worker.kick(who.engagementId);
  return outcome;
}

function insertOnce(
  deps: ServerDeps,
  who: Caller,
  key: string,
  requestHash: string,
  body: StartOperationBody,
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
