// Operation rows and their wire shape. State changes go through these functions so `updated_at` and
// `finished_at` stay consistent, and so each one wakes the operation's long-polls on every instance.
import type { Operation, OperationKind, OperationState } from "../../transport/wire.js";
import type { Store } from "./store.js";
import { WAKE_CHANNELS } from "./wake-channels.js";

export interface OperationRow {
  seq: number;
  id: string;
  kind: OperationKind;
  workspace_id: string;
  engagement_id: string;
  sandbox_id: string;
  turn_id: string;
  repository_id: string;
  repository: string;
  state: OperationState;
  attempts: number;
  overlay_revision: number | null;
  result_json: string | null;
  error_code: string | null;
  error_reason: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  /** The instance running it (while `running`), and until when its lease holds without renewal. */
  claimed_by: string | null;
  lease_until_ms: number | null;
}

export function toWireOperation(row: OperationRow): Operation {
  return {
    id: row.id,
    kind: row.kind,
    state: row.state,
    repository: row.repository,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    result: row.result_json === null ? null : JSON.parse(row.result_json),
    error: row.error_code === null ? null : { code: row.error_code, reason: row.error_reason ?? "" },
  };
}

export async function getOperation(db: Store, id: string): Promise<OperationRow | undefined> {
  return (await db.get("SELECT * FROM operations WHERE id = ?", [id])) as OperationRow | undefined;
}

export async function insertOperation(
  db: Store,
  row: Pick<
    OperationRow,
    | "id"
    | "kind"
    | "workspace_id"
    | "engagement_id"
    | "sandbox_id"
    | "turn_id"
    | "repository_id"
    | "repository"
  >,
  now: Date,
): Promise<OperationRow> {
  const at = now.toISOString();
  const inserted = await db.get<{ seq: number }>(
    `INSERT INTO operations (id, kind, workspace_id, engagement_id, sandbox_id, turn_id, repository_id, repository,
       state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) RETURNING seq`,
    [
      row.id,
      row.kind,
      row.workspace_id,
      row.engagement_id,
      row.sandbox_id,
      row.turn_id,
      row.repository_id,
      row.repository,
      at,
      at,
    ],
  );
  // The row as stored, without reading it back (the column defaults are these).
  return {
    ...row,
    seq: inserted!.seq,
    state: "pending",
    attempts: 0,
    overlay_revision: null,
    result_json: null,
    error_code: null,
    error_reason: null,
    created_at: at,
    updated_at: at,
    finished_at: null,
    claimed_by: null,
    lease_until_ms: null,
  };
}

/** The columns a terminal transition writes: merged into the row it was applied to, the row as stored. */
export type Finished = Pick<
  OperationRow,
  "state" | "overlay_revision" | "result_json" | "error_code" | "error_reason" | "updated_at" | "finished_at"
>;

/**
 * Wakes the long-polls on operation `id`, on every instance, once the calling transaction commits. Call it in
 * the transaction that changes the operation's state; outside one there is nothing to notify after, and the
 * waiters see the change at their next poll (BATON_WAKE_POLL_MS) instead.
 */
export function notifyOperationChanged(db: Store, id: string): void {
  db.current()?.notify(WAKE_CHANNELS.operations, id);
}

/** `running` under `owner`'s claim until `leaseUntilMs`, counting the attempt (a takeover counts one too). */
export async function markRunning(
  db: Store,
  id: string,
  claim: { owner: string; leaseUntilMs: number },
  now: Date,
): Promise<void> {
  await db.run(
    `UPDATE operations SET state = 'running', attempts = attempts + 1, updated_at = ?, claimed_by = ?,
       lease_until_ms = ? WHERE id = ?`,
    [now.toISOString(), claim.owner, claim.leaseUntilMs, id],
  );
  notifyOperationChanged(db, id);
}

/** Fails an open operation; what it wrote, or undefined when the operation was no longer open. */
export async function markFailed(
  db: Store,
  id: string,
  code: string,
  reason: string,
  now: Date,
  options: { notify?: boolean } = {},
): Promise<Finished | undefined> {
  const at = now.toISOString();
  const { changes } = await db.run(
    `UPDATE operations SET state = 'failed', error_code = ?, error_reason = ?, updated_at = ?, finished_at = ?,
       claimed_by = NULL, lease_until_ms = NULL WHERE id = ? AND state IN ('pending', 'running')`,
    [code, reason, at, at, id],
  );
  if (Number(changes) === 0) return undefined;
  if (options.notify ?? true) notifyOperationChanged(db, id);
  return {
    state: "failed",
    overlay_revision: null,
    result_json: null,
    error_code: code,
    error_reason: reason,
    updated_at: at,
    finished_at: at,
  };
}

export async function markSucceeded(
  db: Store,
  id: string,
  overlayRevision: number,
  result: unknown,
  now: Date,
  options: { notify?: boolean } = {},
): Promise<Finished> {
  const at = now.toISOString();
  const resultJson = JSON.stringify(result);
  await db.run(
    `UPDATE operations SET state = 'succeeded', overlay_revision = ?, result_json = ?, updated_at = ?,
       finished_at = ?, claimed_by = NULL, lease_until_ms = NULL WHERE id = ?`,
    [overlayRevision, resultJson, at, at, id],
  );
  if (options.notify ?? true) notifyOperationChanged(db, id);
  return {
    state: "succeeded",
    overlay_revision: overlayRevision,
    result_json: resultJson,
    error_code: null,
    error_reason: null,
    updated_at: at,
    finished_at: at,
  };
}

/**
 * The store lock (Transaction.lock) that orders, per engagement, a request deciding whether to run its operation
 * inline against the worker's drain deciding that the queue is empty.
 */
export const engagementOperationsLock = (engagementId: string): string => `operations:${engagementId}`;

/** The oldest unfinished operation of an engagement: activations run one at a time, in arrival order. */
export async function nextOpenOperation(db: Store, engagementId: string): Promise<OperationRow | undefined> {
  return (await db.get(
    "SELECT * FROM operations WHERE engagement_id = ? AND state IN ('pending', 'running') ORDER BY seq LIMIT 1",
    [engagementId],
  )) as OperationRow | undefined;
}

/**
 * Engagements with open operations that no instance is working through: none of their open operations is under
 * a lease that holds at `nowMs` (never claimed, released, or its holder stopped renewing).
 */
export async function engagementsToDrain(db: Store, nowMs: number): Promise<string[]> {
  return (
    (await db.all(
      `SELECT DISTINCT engagement_id FROM operations o WHERE state IN ('pending', 'running') AND NOT EXISTS (
         SELECT 1 FROM operations h WHERE h.engagement_id = o.engagement_id AND h.state IN ('pending', 'running')
         AND h.claimed_by IS NOT NULL AND h.lease_until_ms >= ?)`,
      [nowMs],
    )) as { engagement_id: string }[]
  ).map((r) => r.engagement_id);
}
