// The service's own records around tickets: the caller's tracker identity in a workspace, the repositories the
// workspace enabled, and which issues its tasks work on (the issues themselves come from the tracker and
// code-host ports).
import type { Store } from "../../store/store.js";

export interface TrackerLink {
  identity: string | null;
  bound: boolean;
}

export async function trackerLinkOf(db: Store, workspaceId: string, email: string): Promise<TrackerLink> {
  const row = (await db.get(
    "SELECT tracker_identity, tracker_identity_bound FROM members WHERE workspace_id = ? AND email = ?",
    [workspaceId, email],
  )) as { tracker_identity: string | null; tracker_identity_bound: number } | undefined;
  return { identity: row?.tracker_identity ?? null, bound: row?.tracker_identity_bound === 1 };
}

export async function enabledReposOf(db: Store, workspaceId: string): Promise<Set<string>> {
  return new Set(
    (
      (await db.all("SELECT slug FROM repositories WHERE workspace_id = ? AND connected = 1", [
        workspaceId,
      ])) as { slug: string }[]
    ).map((r) => r.slug),
  );
}

/** The task source of a delegated issue of each port. */
export const TASK_SOURCE_OF = { tracker: "tracker", codehost: "codehost_issue" } as const;

/** Which of `issueIds` (of one port) a task of the workspace already works on. */
export async function issuesWithTasks(
  db: Store,
  workspaceId: string,
  source: keyof typeof TASK_SOURCE_OF,
  issueIds: readonly string[],
): Promise<Set<string>> {
  if (issueIds.length === 0) return new Set();
  return new Set(
    (
      (await db.all(
        `SELECT ticket_id FROM tasks WHERE workspace_id = ? AND source = ?
         AND ticket_id IN (${db.dialect.jsonArrayValues})`,
        [workspaceId, TASK_SOURCE_OF[source], JSON.stringify(issueIds)],
      )) as { ticket_id: string }[]
    ).map((r) => r.ticket_id),
  );
}
