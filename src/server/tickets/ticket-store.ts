// The service's own records around tickets: the caller's tracker identity in a workspace, the repositories the
// workspace enabled, and which issues its tasks work on (the issues themselves come from the tracker and
// code-host ports).
import type { Database } from "../store/sqlite.js";
import { statement } from "../store/statements.js";

export interface TrackerLink {
  identity: string | null;
  bound: boolean;
}

export function trackerLinkOf(db: Database, workspaceId: string, email: string): TrackerLink {
  const row = statement(
    db,
    "SELECT tracker_identity, tracker_identity_bound FROM members WHERE workspace_id = ? AND email = ?",
  ).get(workspaceId, email) as
    | { tracker_identity: string | null; tracker_identity_bound: number }
    | undefined;
  return { identity: row?.tracker_identity ?? null, bound: row?.tracker_identity_bound === 1 };
}

export function enabledReposOf(db: Database, workspaceId: string): Set<string> {
  return new Set(
    (
      statement(db, "SELECT slug FROM repositories WHERE workspace_id = ? AND connected = 1").all(
        workspaceId,
      ) as { slug: string }[]
    ).map((r) => r.slug),
  );
}

/** The task source of a delegated issue of each port. */
export const TASK_SOURCE_OF = { tracker: "tracker", codehost: "codehost_issue" } as const;

/** Which of `issueIds` (of one port) a task of the workspace already works on. */
export function issuesWithTasks(
  db: Database,
  workspaceId: string,
  source: keyof typeof TASK_SOURCE_OF,
  issueIds: readonly string[],
): Set<string> {
  if (issueIds.length === 0) return new Set();
  return new Set(
    (
      statement(
        db,
        `SELECT ticket_id FROM tasks WHERE workspace_id = ? AND source = ?
         AND ticket_id IN (SELECT value FROM json_each(?))`,
      ).all(workspaceId, TASK_SOURCE_OF[source], JSON.stringify(issueIds)) as { ticket_id: string }[]
    ).map((r) => r.ticket_id),
  );
}
