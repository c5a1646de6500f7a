// GET /v1/workspaces/{id}/tickets: open issues the caller could delegate, found through the tracker and code-host
// ports (read as the caller), with the tracker and code-host status. A port that fails leaves its issues out, so
// the other source still shows; the failure is logged.

import { describeThrown } from "../../../errors.js";
import type { CodehostIssue } from "../../adapters/codehost/port.js";
import type { TrackerIssue } from "../../adapters/tracker/port.js";
import type { Membership, User } from "../auth/users.js";
import { domainError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { TaskContext } from "../tasks/context.js";
import { workspaceFacts } from "../tasks/task-store.js";
import { countCharacters } from "../tasks/validate.js";
import { PORT_SEARCH_PAGE, type TicketPorts } from "./ports.js";
import { type IssueRow, selectTickets } from "./select.js";
import { enabledReposOf, issuesWithTasks, trackerLinkOf } from "./ticket-store.js";

export interface ApiTicket {
  id: string;
  source: "tracker" | "codehost";
  identifier: string;
  title: string;
  state: string;
  context: string;
  url: string;
  workspaceId: string;
  workspaceLabel: string;
  yours: boolean;
}

export interface TicketSearchResponse {
  tickets: ApiTicket[];
  tracker: { connected: boolean; identityLinked: boolean; identityBound: boolean };
  codehost: { connected: boolean; repo: string };
}

export async function searchTickets(
  ctx: TaskContext,
  ports: TicketPorts,
  membership: Membership,
  user: User,
  query: { q?: string | null; repo?: string | null },
): Promise<TicketSearchResponse> {
  if (query.q && countCharacters(query.q) > LIMITS.ticketQueryMaxChars)
    throw domainError("invalid_request", "q is over 200 characters; shorten the search");
  const q = query.q?.trim() || null;
  const workspaceId = membership.workspaceId;
  const facts = (await workspaceFacts(ctx.db, workspaceId))!;
  const link = await trackerLinkOf(ctx.db, workspaceId, user.email);
  const identity = link.identity && link.bound ? link.identity : null;
  const enabled = await enabledReposOf(ctx.db, workspaceId);
  const repoFirst = query.repo && enabled.has(query.repo) ? query.repo : null;
  const login = user.codehostLogin;
  const failed = (port: string) => (error: unknown) => {
    ports.logger.warn(
      { workspaceId, err: describeThrown(error) },
      `ticket search: the ${port} could not be searched`,
    );
    return [];
  };
  const [trackerIssues, codehostIssues] = await Promise.all([
    facts.trackerConnected && identity
      ? ports.tracker
          .searchIssues({ workspaceId, identity, q, limit: PORT_SEARCH_PAGE })
          .catch(failed("tracker"))
      : ([] as TrackerIssue[]),
    facts.codehostConnected && login && enabled.size > 0
      ? ports.codehost
          .searchIssues({
            workspaceId,
            login,
            repos: repoFirst ? [repoFirst, ...[...enabled].filter((r) => r !== repoFirst)] : [...enabled],
            q,
            limit: PORT_SEARCH_PAGE,
          })
          .catch(failed("code host"))
      : ([] as CodehostIssue[]),
  ]);
  const selected = selectTickets(
    [
      ...fromTracker(
        trackerIssues,
        await issuesWithTasks(ctx.db, workspaceId, "tracker", ids(trackerIssues)),
      ),
      ...fromCodehost(
        codehostIssues,
        await issuesWithTasks(ctx.db, workspaceId, "codehost", ids(codehostIssues)),
      ),
    ],
    { trackerIdentity: identity, codehostLogin: login },
    {
      repoFirst,
      enabledRepos: enabled,
      trackerConnected: facts.trackerConnected,
      codehostConnected: facts.codehostConnected,
    },
  );
  return {
    tickets: selected.map(({ issue, yours }) => ({
      id: issue.id,
      source: issue.source,
      identifier: issue.identifier,
      title: issue.title ?? "",
      state: issue.state,
      context: issue.context,
      url: issue.url,
      workspaceId,
      workspaceLabel: membership.workspaceName,
      yours,
    })),
    tracker: {
      connected: facts.trackerConnected,
      identityLinked: link.identity !== null,
      identityBound: link.bound,
    },
    codehost: { connected: facts.codehostConnected, repo: repoFirst ?? "" },
  };
}

const ids = (issues: readonly { id: string }[]) => issues.map((i) => i.id);

export const codehostIdentifier = (issue: { repo: string; number: number }) =>
  `${issue.repo}#${issue.number}`;

function fromTracker(issues: readonly TrackerIssue[], withTasks: ReadonlySet<string>): IssueRow[] {
  return issues.map((issue, seq) => ({
    id: issue.id,
    source: "tracker",
    identifier: issue.identifier,
    repo: null,
    number: null,
    title: issue.title,
    context: issue.context,
    state: issue.state,
    assignee: issue.assignee,
    isPullRequest: false,
    url: issue.url,
    inProgress: issue.inProgress || withTasks.has(issue.id),
    seq,
  }));
}

function fromCodehost(issues: readonly CodehostIssue[], withTasks: ReadonlySet<string>): IssueRow[] {
  return issues.map((issue, seq) => ({
    id: issue.id,
    source: "codehost",
    identifier: codehostIdentifier(issue),
    repo: issue.repo,
    number: issue.number,
    title: issue.title,
    context: issue.context,
    state: issue.state,
    assignee: issue.assignee,
    isPullRequest: issue.isPullRequest,
    url: issue.url,
    inProgress: issue.inProgress || withTasks.has(issue.id),
    seq,
  }));
}
