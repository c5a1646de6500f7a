// Starts an activation for a sandbox. The idempotency record and the operation row commit together; when the
// engagement's queue is idle the activation itself runs inside that same transaction, so one commit makes it
// durable and finished, and the 202 carries the terminal operation: the client skips the long-poll. Otherwise
// the row commits `pending` and the engagement's worker takes it in arrival order. The transaction is a group
// commit (store/group-commit.ts): requests arriving together share one fsync.

import { hash } from "node:crypto";
import type { Overlay } from "../../envfile/overlay.js";
import { describeThrown } from "../../errors.js";
import type { StartOperationBody } from "../../transport/wire.js";
import type { Caller } from "../auth/authenticate.js";
import { newId } from "../auth/tokens.js";
import type { ServerDeps } from "../deps.js";
import { domainError } from "../domain/errors.js";
import { commitSoon } from "../store/group-commit.js";
import { getOperation, insertOperation, nextOpenSeq, type OperationRow } from "../store/operations.js";
import { statement } from "../store/statements.js";
import { commitActivation } from "./activate.js";
import { loadOverlay } from "./engagement-state.js";

export interface StartedOperation {
  row: OperationRow;
  /** False when the Idempotency-Key was seen before: `row` is the first request's operation, as it is now. */
  created: boolean;
  /** The overlay `row` committed, when its state is `succeeded`: the answer carries it. */
  overlay: Overlay | undefined;
}

export async function startOperation(
  deps: ServerDeps,
  who: Caller,
  key: string,
  body: StartOperationBody,
  requestId: string,
): Promise<StartedOperation> {
  const requestHash = hash("sha256", JSON.stringify([body.kind, body.repository]), "hex");
  const started = await commitSoon(deps.db, () => {
    const previous = findPrevious(deps, who, key, requestHash);
    if (previous) return { row: previous, created: false, queued: false, overlay: overlayOf(deps, previous) };
    const row = insertPending(deps, who, key, requestHash, body);
    deps.logger.debug({ requestId, operationId: row.id, repository: body.repository }, "operation accepted");
    const finished = runIfIdle(deps, row);
    if (!finished) return { row, created: true, queued: true, overlay: undefined };
    return { row: finished.row, created: true, queued: false, overlay: finished.overlay };
  });
  if (started.queued) deps.worker.kick(who.engagementId);
  return { row: started.row, created: started.created, overlay: started.overlay };
}

/** A replayed operation's overlay, when it has succeeded (the replaying sandbox is the one that started it). */
function overlayOf(deps: ServerDeps, row: OperationRow): Overlay | undefined {
  if (row.state !== "succeeded" || row.overlay_revision === null) return undefined;
  return loadOverlay(deps.db, row.engagement_id, row.overlay_revision);
}

function findPrevious(
  deps: ServerDeps,
  who: Caller,
  key: string,
  requestHash: string,
): OperationRow | undefined {
  const previous = statement(
    deps.db,
    "SELECT request_hash, operation_id FROM idempotency_records WHERE sandbox_id = ? AND idempotency_key = ?",
  ).get(who.sandboxId, key) as { request_hash: string; operation_id: string } | undefined;
  if (!previous) return undefined;
  if (previous.request_hash !== requestHash) {
    throw domainError(
      "idempotency_conflict",
      "this Idempotency-Key was already used for a different request; use a new key",
    );
  }
  return getOperation(deps.db, previous.operation_id)!;
}

function insertPending(
  deps: ServerDeps,
  who: Caller,
  key: string,
  requestHash: string,
  body: StartOperationBody,
): OperationRow {
  const { db } = deps;
  const repo = statement(
    db,
    "SELECT id, connected FROM repositories WHERE workspace_id = ? AND slug = ?",
  ).get(who.workspaceId, body.repository) as { id: string; connected: number } | undefined;
  if (!repo) throw domainError("not_found", `no repository ${body.repository} in this workspace`);
  if (repo.connected !== 1) {
    throw domainError(
      "invalid_repo",
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
  statement(
    db,
    "INSERT INTO idempotency_records (sandbox_id, idempotency_key, request_hash, operation_id, created_at) VALUES (?, ?, ?, ?, ?)",
  ).run(who.sandboxId, key, requestHash, row.id, now.toISOString());
  return row;
}

/**
 * Runs the activation now, inside the caller's transaction, when nothing of the engagement is ahead of it (no
 * open row, no worker draining it). Activations stay serial per engagement: node:sqlite is synchronous, so
 * nothing else runs between this check and the commit. Returns the finished row (with the overlay it committed
 * when it succeeded), or undefined to leave it to
 * the worker (queue busy, or the activation threw: its savepoint is rolled back and the worker runs it again,
 * failing it `internal` with the usual attempt count if it throws there too).
 */
function runIfIdle(
  deps: ServerDeps,
  row: OperationRow,
): { row: OperationRow; overlay: Overlay | undefined } | undefined {
  const { db, logger } = deps;
  if (!deps.worker.isIdle(row.engagement_id) || nextOpenSeq(db, row.engagement_id) !== row.seq)
    return undefined;
  statement(db, "SAVEPOINT inline_activation").run();
  try {
    const outcome = commitActivation(db, row, deps.now());
    statement(db, "RELEASE inline_activation").run();
    const failure = "failure" in outcome ? outcome.failure : undefined;
    logger.info(
      { operationId: row.id, state: failure ? "failed" : "succeeded", code: failure?.code },
      "operation finished",
    );
    // The row as committed, from what the activation wrote rather than read back.
    const finished = outcome.finished ? { ...row, ...outcome.finished } : getOperation(db, row.id)!;
    return { row: finished, overlay: "overlay" in outcome ? outcome.overlay : undefined };
  } catch (error) {
    statement(db, "ROLLBACK TO inline_activation").run();
    statement(db, "RELEASE inline_activation").run();
    const described = describeThrown(error);
    logger.error({ operationId: row.id, err: described }, "operation step failed; the worker retries it");
    return undefined;
  }
}
