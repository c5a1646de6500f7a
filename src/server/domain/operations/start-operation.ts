// Starts an activation for a sandbox. The idempotency record and the operation row commit together; when the
// engagement's queue is idle the activation itself runs inside that same transaction, so one commit makes it
// durable and finished, and the 202 carries the terminal operation: the client skips the long-poll. Otherwise
// the row commits `pending` and the engagement's worker takes it in arrival order. The transaction is a group
// commit (store/group-commit.ts): requests arriving together share one fsync.

import { hash } from "node:crypto";
import type { Logger } from "pino";
import type { Overlay } from "../../../envfile/overlay.js";
import { describeThrown } from "../../../errors.js";
import type { StartOperationBody } from "../../../transport/wire.js";
import { touchActivity } from "../../adapters/sandboxes/store.js";
import { newId } from "../../primitives/tokens.js";
import {
  engagementOperationsLock,
  getOperation,
  insertOperation,
  type OperationRow,
} from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import type { Caller } from "../auth/authenticate.js";
import { domainError } from "../errors.js";
import { commitActivation } from "./activate.js";
import { loadOverlay } from "./engagement-state.js";
import type { OperationWorker } from "./worker.js";

/** What starting a durable operation uses of the service: nothing more (composition hands over the whole set). */
export interface StartOperationDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  worker: OperationWorker;
}

export interface StartedOperation {
  row: OperationRow;
  /** False when the Idempotency-Key was seen before: `row` is the first request's operation, as it is now. */
  created: boolean;
  /** The overlay `row` committed, when its state is `succeeded`: the answer carries it. */
  overlay: Overlay | undefined;
}

export async function startOperation(
  deps: StartOperationDeps,
  who: Caller,
  key: string,
  body: StartOperationBody,
  requestId: string,
): Promise<StartedOperation> {
  const requestHash = hash("sha256", JSON.stringify([body.kind, body.repository]), "hex");
  const { db } = deps;
  const attempt = (inline: boolean) =>
    db.transaction(async (tx) => {
      // Ordered against the worker's drain of this engagement (see OperationWorker.drain).
      await tx.lock(engagementOperationsLock(who.engagementId));
      // The lease use (authenticate's, deferred to here): it commits with the operation, in one commit.
      if (who.activity) await touchActivity(db, who.sandboxId, who.activity.atMs);
      const facts = await readStartFacts(db, who, key, body.repository);
      // A refusal is returned, not thrown, so the activity above still commits.
      if (facts.previous_id !== null) {
        if (facts.previous_hash !== requestHash) return { refusal: IDEMPOTENCY_CONFLICT() };
        const previous = (await getOperation(db, facts.previous_id))!;
        return { row: previous, created: false, queued: false, overlay: await overlayOf(deps, previous) };
      }
      if (facts.repository_id === null)
        return { refusal: domainError("not_found", `no repository ${body.repository} in this workspace`) };
      if (facts.connected !== 1) {
        return {
          refusal: domainError(
            "invalid_repo",
            `${body.repository} is not connected to the workspace; ask an owner or admin to connect it`,
          ),
        };
      }
      const row = await insertPending(deps, who, key, requestHash, body, facts.repository_id);
      deps.logger.debug(
        { requestId, operationId: row.id, repository: body.repository },
        "operation accepted",
      );
      // Under the engagement's lock, no open row before the insert means this one is the oldest open row.
      const finished = inline && facts.open_seq === null ? await runIfIdle(deps, row) : undefined;
      if (!finished) return { row, created: true, queued: true, overlay: undefined };
      return { row: finished.row, created: true, queued: false, overlay: finished.overlay };
    });
  let started: Awaited<ReturnType<typeof attempt>>;
  try {
    started = await attempt(true);
  } catch (error) {
    if (!(error instanceof InlineActivationFailed)) throw error;
    // The whole transaction rolled back; start again without running it: the row commits pending and the
    // worker runs it (failing it `internal` if it throws there too).
    deps.logger.error(
      { requestId, err: describeThrown(error.cause) },
      "operation step failed; the worker retries it",
    );
    started = await attempt(false);
  }
  if (who.activity) who.activity.recorded = true;
  if ("refusal" in started) throw started.refusal;
  if (started.queued) deps.worker.kick(who.engagementId);
  return { row: started.row, created: started.created, overlay: started.overlay };
}

const IDEMPOTENCY_CONFLICT = () =>
  domainError(
    "idempotency_conflict",
    "this Idempotency-Key was already used for a different request; use a new key",
  );

/** A replayed operation's overlay, when it has succeeded (the replaying sandbox is the one that started it). */
async function overlayOf(deps: StartOperationDeps, row: OperationRow): Promise<Overlay | undefined> {
  if (row.state !== "succeeded" || row.overlay_revision === null) return undefined;
  return await loadOverlay(deps.db, row.engagement_id, row.overlay_revision);
}

/**
 * What a start decides on, in one statement: the key's earlier request, the repository (and whether it is
 * connected), and the engagement's oldest open operation (before this one is inserted).
 */
async function readStartFacts(
  db: Store,
  who: Caller,
  key: string,
  repository: string,
): Promise<{
  previous_hash: string | null;
  previous_id: string | null;
  repository_id: string | null;
  connected: number | null;
  open_seq: number | null;
}> {
  return (await db.get(
    `SELECT
       (SELECT request_hash FROM idempotency_records WHERE sandbox_id = ? AND idempotency_key = ?) AS previous_hash,
       (SELECT operation_id FROM idempotency_records WHERE sandbox_id = ? AND idempotency_key = ?) AS previous_id,
       (SELECT id FROM repositories WHERE workspace_id = ? AND slug = ?) AS repository_id,
       (SELECT connected FROM repositories WHERE workspace_id = ? AND slug = ?) AS connected,
       (SELECT seq FROM operations WHERE engagement_id = ? AND state IN ('pending', 'running')
          ORDER BY seq LIMIT 1) AS open_seq`,
    [
      who.sandboxId,
      key,
      who.sandboxId,
      key,
      who.workspaceId,
      repository,
      who.workspaceId,
      repository,
      who.engagementId,
    ],
  ))!;
}

async function insertPending(
  deps: StartOperationDeps,
  who: Caller,
  key: string,
  requestHash: string,
  body: StartOperationBody,
  repositoryId: string,
): Promise<OperationRow> {
  const { db } = deps;
  const now = deps.now();
  const row = await insertOperation(
    db,
    {
      id: newId("op"),
      kind: body.kind,
      workspace_id: who.workspaceId,
      engagement_id: who.engagementId,
      sandbox_id: who.sandboxId,
      turn_id: who.turnId,
      repository_id: repositoryId,
      repository: body.repository,
    },
    now,
  );
  await db.run(
    "INSERT INTO idempotency_records (sandbox_id, idempotency_key, request_hash, operation_id, created_at) VALUES (?, ?, ?, ?, ?)",
    [who.sandboxId, key, requestHash, row.id, now.toISOString()],
  );
  return row;
}

/** An activation that threw inside the request's transaction: that transaction is rolled back whole. */
class InlineActivationFailed extends Error {
  constructor(cause: unknown) {
    super("the activation failed in its request", { cause });
    this.name = "InlineActivationFailed";
  }
}

/**
 * Runs the activation now, inside the caller's transaction, when nothing of the engagement is ahead of it (no
 * open row, no worker draining it here). Activations stay serial per engagement on every instance: the caller's
 * transaction holds the engagement's operations lock, which every instance's drain takes to claim the oldest open
 * row or find none, and an operation another instance runs is an open row ahead of this one. Returns the finished
 * row (with the overlay it committed when it succeeded), or undefined to leave it to the worker (queue busy). An
 * activation that throws rolls the whole transaction back (InlineActivationFailed) and startOperation starts the
 * operation again without running it: no savepoint, which on PostgreSQL cost two round trips per activation.
 */
async function runIfIdle(
  deps: StartOperationDeps,
  row: OperationRow,
): Promise<{ row: OperationRow; overlay: Overlay | undefined } | undefined> {
  const { db, logger } = deps;
  if (!deps.worker.isIdle(row.engagement_id)) return undefined;
  let outcome: Awaited<ReturnType<typeof commitActivation>>;
  try {
    // Nobody can be waiting on an operation inserted in this transaction: nothing to notify.
    outcome = await commitActivation(db, row, deps.now(), { notify: false });
  } catch (error) {
    throw new InlineActivationFailed(error);
  }
  const failure = "failure" in outcome ? outcome.failure : undefined;
  logger.info(
    { operationId: row.id, state: failure ? "failed" : "succeeded", code: failure?.code },
    "operation finished",
  );
  // The row as committed, from what the activation wrote rather than read back.
  const finished = outcome.finished ? { ...row, ...outcome.finished } : (await getOperation(db, row.id))!;
  return { row: finished, overlay: "overlay" in outcome ? outcome.overlay : undefined };
}
