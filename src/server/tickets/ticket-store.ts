// Issues held in the store by the local tracker and code-host implementations (seeded from the seed document),
// and the caller's tracker identity in a workspace.
import type { Database } from "../store/sqlite.js";
import { statement } from "../store/statements.js";
import type { IssueRow } from "./select.js";

type Row = {
  seq: number;
  id: string;
  source: "tracker" | "codehost";
  identifier: string;
  repo: string | null;
  number: number | null;
  title: string | null;
  context: string;
  state: "open" | "closed";
  assignee: string | null;
  is_pull_request: number;
  url: string;
  task_id: string | null;
};

const toIssue = (row: Row): IssueRow => ({
  id: row.id,
  source: row.source,
  identifier: row.identifier,
  repo: row.repo,
  number: row.number,
  title: row.title,
  context: row.context,
  state: row.state,
  assignee: row.assignee,
  isPullRequest: row.is_pull_request === 1,
  url: row.url,
  taskId: row.task_id,
  seq: row.seq,
});

export function issuesOf(db: Database, workspaceId: string): IssueRow[] {
  return (
    statement(db, "SELECT rowid AS seq, * FROM tickets WHERE workspace_id = ? ORDER BY rowid").all(
      workspaceId,
    ) as unknown as Row[]
  ).map(toIssue);
}

export function findTrackerIssue(
  db: Database,
  workspaceId: string,
  idOrIdentifier: string,
): IssueRow | undefined {
  const row = statement(
    db,
    "SELECT rowid AS seq, * FROM tickets WHERE workspace_id = ? AND source = 'tracker' AND (id = ? OR identifier = ?)",
  ).get(workspaceId, idOrIdentifier, idOrIdentifier) as Row | undefined;
  return row && toIssue(row);
}

export function findCodehostIssue(
  db: Database,
  workspaceId: string,
  repo: string,
  number: number,
): IssueRow | undefined {
  const row = statement(
    db,
    "SELECT rowid AS seq, * FROM tickets WHERE workspace_id = ? AND source = 'codehost' AND repo = ? AND number = ?",
  ).get(workspaceId, repo, number) as Row | undefined;
  return row && toIssue(row);
}

export function claimIssue(db: Database, issueId: string, taskId: string, assignee: string): void {
  statement(db, "UPDATE tickets SET task_id = ?, assignee = coalesce(assignee, ?) WHERE id = ?").run(
    taskId,
    assignee,
    issueId,
  );
}

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
