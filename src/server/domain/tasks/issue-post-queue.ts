// The outbox of replies posted back to issues (`issue_posts`): every agent reply and platform notice of a task
// that belongs to an issue (`tasks.ticket_id` set: delegated or started by a webhook) is queued in the same
// transaction that adds the entry, so none is lost to a crash; issue-replies.ts posts them. An instance claims
// one post at a time with a lease (store/claims.ts): another instance skips it while the lease holds, and takes
// it over when the claimer died.
import { anyClaimable, type ClaimedRow, claimNext, finishClaim } from "../../store/claims.js";
import type { SqlValue, Store } from "../../store/store.js";
import { WAKE_CHANNELS, WORK_QUEUES } from "../../store/wake-channels.js";

/** The claim table and its key. */
export const ISSUE_POST_CLAIM = { table: "issue_posts", key: "entry_id" } as const;

/** Queues `entryId` of `taskId` for posting when the task belongs to an issue and the entry is not a user's. */
export async function queueIssuePost(db: Store, taskId: string, entryId: string): Promise<void> {
  const { changes } = await db.run(
    `INSERT INTO issue_posts (entry_id, task_id, state, message_seq)
     SELECT ?, t.id, 'queued', (SELECT m.seq FROM task_messages m WHERE m.id = ?) FROM tasks t
     WHERE t.id = ? AND t.ticket_id IS NOT NULL
     ON CONFLICT (entry_id) DO NOTHING`,
    [entryId, entryId, taskId],
  );
  // Every instance's reply worker wakes once this commits (it polls only as a fallback).
  if (changes > 0) db.current()?.notify(WAKE_CHANNELS.workQueues, WORK_QUEUES.issuePosts);
}

/** When the next queued post falls due (a retry's backoff), if any is queued. */
export async function nextPostDueAt(db: Store): Promise<number | undefined> {
  // A post another instance holds falls due when its claim would run out, not at once (no busy loop meanwhile).
  const row = await db.get<{ due: number | null }>(
    `SELECT min(CASE WHEN claimed_by IS NULL OR lease_until_ms < next_attempt_at_ms THEN next_attempt_at_ms
       ELSE lease_until_ms + 1 END) AS due FROM issue_posts WHERE state = 'queued'`,
  );
  return row?.due === null || row?.due === undefined ? undefined : Number(row.due);
}

/** Whether any queued post is due and free to claim: a read, so an idle worker polls without a write each time. */
export function anyPostClaimable(db: Store, nowMs: number): Promise<boolean> {
  return anyClaimable(db, {
    table: "issue_posts",
    ready: "state = 'queued' AND next_attempt_at_ms <= ?",
    params: [nowMs],
    now: nowMs,
  });
}

/** Claims the oldest due post (in its messages' order) that no live instance holds; its entry id, or undefined. */
export async function claimDuePost(
  db: Store,
  claim: { owner: string; leaseMs: number; nowMs: number },
): Promise<string | undefined> {
  const row = (await claimNext(db, {
    ...ISSUE_POST_CLAIM,
    ready: "state = 'queued' AND next_attempt_at_ms <= ?",
    params: [claim.nowMs],
    order: "message_seq, entry_id",
    owner: claim.owner,
    leaseMs: claim.leaseMs,
    now: claim.nowMs,
  })) as ClaimedRow | undefined;
  return row ? String(row.id) : undefined;
}

/** Ends `owner`'s claim on a post with `set` written; false (nothing written) when another instance took it over. */
export function finishPost(
  db: Store,
  held: { entryId: string; owner: string },
  set: Record<string, SqlValue>,
): Promise<boolean> {
  return finishClaim(db, { ...ISSUE_POST_CLAIM, id: held.entryId, owner: held.owner, set });
}
