// Which open issues the ticket search lists (reference section 4, "GET .../tickets"), as a pure function over the
// issues the tracker and code-host ports found and the caller: the caller's own first, then the team's unassigned
// ones; tracker issues before code-host issues; at most 10 from each; never issues assigned to someone else,
// closed, already being worked on, or pull requests. The ports search with the query; this decides what shows.
import { LIMITS } from "../limits.js";

export interface IssueRow {
  id: string;
  source: "tracker" | "codehost";
  identifier: string;
  repo: string | null;
  number: number | null;
  title: string | null;
  context: string;
  state: "open" | "closed";
  assignee: string | null;
  isPullRequest: boolean;
  url: string;
  /** Being worked on: the port says so, or the service has a task on it. */
  inProgress: boolean;
  /** The port's order. */
  seq: number;
}

export interface Caller {
  /** The caller's tracker identity when linked and bound to this workspace's tracker, else null. */
  trackerIdentity: string | null;
  codehostLogin: string | null;
}

export interface TicketQuery {
  /** An enabled repository to search first on the code host (a repository that is not enabled is ignored). */
  repoFirst: string | null;
  enabledRepos: ReadonlySet<string>;
  trackerConnected: boolean;
  codehostConnected: boolean;
}

export interface SelectedIssue {
  issue: IssueRow;
  yours: boolean;
}

const eligible = (issue: IssueRow, me: string) =>
  issue.state === "open" &&
  !issue.isPullRequest &&
  !issue.inProgress &&
  (issue.assignee === null || issue.assignee === me);

function rank(issues: IssueRow[], me: string, first: (issue: IssueRow) => boolean): SelectedIssue[] {
  return issues
    .map((issue) => ({ issue, yours: issue.assignee === me }))
    .sort(
      (a, b) =>
        Number(b.yours) - Number(a.yours) ||
        Number(first(b.issue)) - Number(first(a.issue)) ||
        a.issue.seq - b.issue.seq,
    )
    .slice(0, LIMITS.ticketsPerSource);
}

export function selectTickets(
  issues: readonly IssueRow[],
  caller: Caller,
  query: TicketQuery,
): SelectedIssue[] {
  const tracker =
    query.trackerConnected && caller.trackerIdentity
      ? rank(
          issues.filter((i) => i.source === "tracker" && eligible(i, caller.trackerIdentity!)),
          caller.trackerIdentity,
          () => false,
        )
      : [];
  const repoFirst = query.repoFirst && query.enabledRepos.has(query.repoFirst) ? query.repoFirst : null;
  const codehost =
    query.codehostConnected && caller.codehostLogin
      ? rank(
          issues.filter(
            (i) =>
              i.source === "codehost" &&
              i.repo !== null &&
              query.enabledRepos.has(i.repo) &&
              eligible(i, caller.codehostLogin!),
          ),
          caller.codehostLogin,
          (i) => i.repo === repoFirst,
        )
      : [];
  return [...tracker, ...codehost];
}
