// GET /v1/workspaces/{id}/tickets: open issues the caller could delegate, with the tracker and code-host status.
import { apiError } from "../api/errors.js";
import { LIMITS } from "../api/wire.js";
import type { Membership, User } from "../auth/users.js";
import type { TaskContext } from "../tasks/context.js";
import { workspaceFacts } from "../tasks/task-store.js";
import { countCharacters } from "../tasks/validate.js";
import { selectTickets } from "./select.js";
import { enabledReposOf, issuesOf, trackerLinkOf } from "./ticket-store.js";

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

export function searchTickets(
  ctx: TaskContext,
  membership: Membership,
  user: User,
  query: { q?: string | null; repo?: string | null },
): TicketSearchResponse {
  const q = query.q ?? null;
  if (q !== null && countCharacters(q) > LIMITS.ticketQueryMaxChars)
    throw apiError("invalid_request", "q is over 200 characters; shorten the search");
  const facts = workspaceFacts(ctx.db, membership.workspaceId)!;
  const link = trackerLinkOf(ctx.db, membership.workspaceId, user.email);
  const enabled = enabledReposOf(ctx.db, membership.workspaceId);
  const repoFirst = query.repo && enabled.has(query.repo) ? query.repo : null;
  const selected = selectTickets(
    issuesOf(ctx.db, membership.workspaceId),
    {
      trackerIdentity: link.identity && link.bound ? link.identity : null,
      codehostLogin: user.codehostLogin,
    },
    {
      q,
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
      workspaceId: membership.workspaceId,
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
