// Comments the local code host and tracker hold (the store's `ticket_comments`): what a real platform would show
// under the issue. The demo and tests read them back; `issueKey` is `owner/name#number` for the code host and the
// issue id for the tracker.
import type { Store } from "../../store/store.js";

export type CommentSource = "codehost" | "tracker";

export async function addLocalComment(
  db: Store,
  input: { workspaceId: string; source: CommentSource; issueKey: string; body: string },
  now: Date,
): Promise<void> {
  await db.run(
    "INSERT INTO ticket_comments (workspace_id, source, issue_key, body, created_at) VALUES (?, ?, ?, ?, ?)",
    [input.workspaceId, input.source, input.issueKey, input.body, now.toISOString()],
  );
}

export async function localComments(
  db: Store,
  input: { workspaceId: string; source: CommentSource; issueKey: string },
): Promise<{ body: string; createdAt: string }[]> {
  return (
    (await db.all(
      `SELECT body, created_at FROM ticket_comments WHERE workspace_id = ? AND source = ? AND issue_key = ?
       ORDER BY seq`,
      [input.workspaceId, input.source, input.issueKey],
    )) as { body: string; created_at: string }[]
  ).map((row) => ({ body: row.body, createdAt: row.created_at }));
}

export const codehostIssueKey = (repo: string, number: number): string => `${repo}#${number}`;
