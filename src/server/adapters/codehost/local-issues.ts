// The local code host's issues: held in the store's `tickets` table (source `codehost`), seeded from the seed
// document. Search matches every word of the query in the title or the text, as a code host's search terms do; a
// claim sets the issue's task and, when it had none, its assignee.
import type { Store } from "../../store/store.js";
import type { Codehost, CodehostIssue } from "./port.js";

interface Row {
  id: string;
  repo: string;
  number: number;
  title: string | null;
  context: string;
  state: "open" | "closed";
  assignee: string | null;
  is_pull_request: number;
  url: string;
  task_id: string | null;
}

const COLUMNS = "id, repo, number, title, context, state, assignee, is_pull_request, url, task_id";

const toIssue = (row: Row): CodehostIssue => ({
  id: row.id,
  repo: row.repo,
  number: row.number,
  title: row.title,
  context: row.context,
  state: row.state,
  assignee: row.assignee,
  isPullRequest: row.is_pull_request === 1,
  inProgress: row.task_id !== null,
  url: row.url,
});

/** "matched as code-host search terms": every word of `q` appears in the title or the text, in any case. */
export function matchesSearchTerms(issue: { title: string | null; context: string }, q: string): boolean {
  const text = `${issue.title ?? ""}\n${issue.context}`.toLowerCase();
  return q
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((term) => text.includes(term));
}

export type CodehostIssues = Pick<Codehost, "searchIssues" | "findIssue" | "claimIssue">;

export function createLocalIssues(db: Store): CodehostIssues {
  return {
    async searchIssues({ workspaceId, login, repos, q, limit }) {
      const rows = (await db.all(
        `SELECT ${COLUMNS} FROM tickets WHERE workspace_id = ? AND source = 'codehost' AND state = 'open'
         AND is_pull_request = 0 AND task_id IS NULL AND (assignee IS NULL OR assignee = ?)
         AND repo IN (${db.dialect.jsonArrayValues}) ORDER BY created_at, repo, number`,
        [workspaceId, login, JSON.stringify(repos)],
      )) as unknown as Row[];
      return rows
        .filter((row) => !q || matchesSearchTerms(row, q))
        .slice(0, limit)
        .map(toIssue);
    },
    async findIssue({ workspaceId, repo, number }) {
      const row = (await db.get(
        `SELECT ${COLUMNS} FROM tickets WHERE workspace_id = ? AND source = 'codehost' AND repo = ? AND number = ?`,
        [workspaceId, repo, number],
      )) as Row | undefined;
      return row && toIssue(row);
    },
    async claimIssue({ workspaceId, repo, number, login, taskId }) {
      await db.run(
        `UPDATE tickets SET task_id = ?, assignee = coalesce(assignee, ?)
         WHERE workspace_id = ? AND source = 'codehost' AND repo = ? AND number = ?`,
        [taskId, login, workspaceId, repo, number],
      );
    },
  };
}
