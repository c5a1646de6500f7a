// The outbox of replies posted back to issues (`issue_posts`): every agent reply and platform notice of a task
// that belongs to an issue (`tasks.ticket_id` set: delegated or started by a webhook) is queued in the same
// transaction that adds the entry, so none is lost to a crash; issue-replies.ts posts them.
import type { Store } from "../store/store.js";

/** Queues `entryId` of `taskId` for posting when the task belongs to an issue and the entry is not a user's. */
export async function queueIssuePost(db: Store, taskId: string, entryId: string): Promise<void> {
  await db.run(
    `INSERT INTO issue_posts (entry_id, task_id, state)
     SELECT ?, t.id, 'queued' FROM tasks t WHERE t.id = ? AND t.ticket_id IS NOT NULL
     ON CONFLICT (entry_id) DO NOTHING`,
    [entryId, taskId],
  );
}
