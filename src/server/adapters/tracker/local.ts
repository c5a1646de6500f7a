// The local tracker: issues held in the store's `tickets` table (source `tracker`), seeded from the seed
// document. A claim sets the issue's task and, when it had none, its assignee, as a real tracker's assignment
// and link would.
import type { Store } from "../../store/store.js";
import { addLocalComment } from "../codehost/local-comments.js";
import type { Tracker, TrackerIssue } from "./port.js";

interface Row {
  id: string;
  identifier: string;
  title: string | null;
  context: string;
  state: "open" | "closed";
  assignee: string | null;
  url: string;
  task_id: string | null;
}

const COLUMNS = "id, identifier, title, context, state, assignee, url, task_id";

const toIssue = (row: Row): TrackerIssue => ({
  id: row.id,
  identifier: row.identifier,
  title: row.title,
  context: row.context,
  state: row.state,
  assignee: row.assignee,
  inProgress: row.task_id !== null,
  url: row.url,
});

/** The reference's rule for the tracker: `q` is a substring of the title, in any case. */
export const titleMatches = (title: string | null, q: string): boolean =>
  (title ?? "").toLowerCase().includes(q.toLowerCase());

export function createLocalTracker(options: { db: Store; now?: () => Date }): Tracker {
  const { db } = options;
  const now = options.now ?? (() => new Date());
  return {
    kind: "local",
    async searchIssues({ workspaceId, identity, q, limit }) {
      const rows = (await db.all(
        `SELECT ${COLUMNS} FROM tickets WHERE workspace_id = ? AND source = 'tracker' AND state = 'open'
         AND task_id IS NULL AND (assignee IS NULL OR assignee = ?) ORDER BY created_at, length(identifier), identifier`,
        [workspaceId, identity],
      )) as unknown as Row[];
      return rows
        .filter((row) => !q || titleMatches(row.title, q))
        .slice(0, limit)
        .map(toIssue);
    },
    async findIssue({ workspaceId, idOrIdentifier }) {
      const row = (await db.get(
        `SELECT ${COLUMNS} FROM tickets WHERE workspace_id = ? AND source = 'tracker' AND (id = ? OR identifier = ?)
         ORDER BY id = ? DESC LIMIT 1`,
        [workspaceId, idOrIdentifier, idOrIdentifier, idOrIdentifier],
      )) as Row | undefined;
      return row && toIssue(row);
    },
    async claimIssue({ workspaceId, issueId, identity, taskId }) {
      await db.run(
        `UPDATE tickets SET task_id = ?, assignee = coalesce(assignee, ?)
         WHERE workspace_id = ? AND source = 'tracker' AND id = ?`,
        [taskId, identity, workspaceId, issueId],
      );
    },
    async postComment({ workspaceId, issueId, body }) {
      await addLocalComment(db, { workspaceId, source: "tracker", issueKey: issueId, body }, now());
    },
  };
}
