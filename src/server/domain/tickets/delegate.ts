// POST /v1/workspaces/{id}/tickets/delegate: hands an existing issue to the service as the caller. The issue is
// read through the tracker or code-host port; refusals say what to fix; a full queue refuses before the issue is
// touched (the port's claim comes after the task is saved). The task runs like any other (plan slots, the queue)
// but its conversation belongs to the issue, so the conversation routes answer `not_an_api_task`.

import { z } from "zod";
import { describeThrown } from "../../../errors.js";
import type { Membership, User } from "../auth/users.js";
import { domainError } from "../errors.js";
import type { TaskContext } from "../tasks/context.js";
import { refusalError } from "../tasks/start-task.js";
import { workspaceFacts } from "../tasks/task-store.js";
import { issueInProgress, startIssueTask } from "./issue-task.js";
import type { TicketPorts } from "./ports.js";
import { codehostIdentifier } from "./search.js";
import { enabledReposOf, trackerLinkOf } from "./ticket-store.js";

export const DelegateBodySchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("tracker"), id: z.string().min(1).max(200) }),
  z.object({
    source: z.literal("codehost"),
    repo: z.string().min(1).max(200),
    number: z.number().int().positive(),
  }),
]);
export type DelegateBody = z.infer<typeof DelegateBodySchema>;

/** An issue found through its port, with what delegating it as the caller needs. */
interface Found {
  source: "tracker" | "codehost";
  issue: {
    id: string;
    identifier: string;
    title: string | null;
    context: string;
    state: "open" | "closed";
    assignee: string | null;
    isPullRequest: boolean;
    inProgress: boolean;
    repo: string | null;
  };
  /** The caller on that port (tracker identity or code-host login). */
  as: string;
  claim: (taskId: string) => Promise<void>;
  /** The code host's issue number (replies are posted to it); null for the tracker. */
  number: number | null;
}

export async function delegateTicket(
  ctx: TaskContext,
  ports: TicketPorts,
  membership: Membership,
  user: User,
  body: DelegateBody,
): Promise<{ taskId: string }> {
  const workspaceId = membership.workspaceId;
  const found = await findIssue(ctx, ports, workspaceId, user, body);
  const { issue } = found;
  if (issue.isPullRequest)
    throw domainError("ticket_is_pull_request", `${issue.identifier} is a pull request; delegate an issue`);
  if (issue.state === "closed")
    throw domainError("ticket_closed", `${issue.identifier} is closed; reopen it first`);
  if (issue.inProgress) throw inProgress(issue.identifier);
  if (issue.assignee !== null && issue.assignee !== found.as)
    throw domainError(
      "ticket_assigned_elsewhere",
      `${issue.identifier} is assigned to someone else; unassign it first`,
    );
  const { taskId } = await startIssueTask(ctx, {
    workspaceId,
    source: found.source,
    issue: {
      id: issue.id,
      identifier: issue.identifier,
      title: issue.title,
      context: issue.context,
      repo: issue.repo,
      number: found.number,
    },
    userId: user.id,
  });
  // The task is saved and runs; a port that cannot record the claim does not undo that.
  await found.claim(taskId).catch((error: unknown) =>
    ports.logger.warn(
      {
        workspaceId,
        taskId,
        err: describeThrown(error),
      },
      `delegation: the ${found.source} did not record the claim of ${issue.identifier}`,
    ),
  );
  return { taskId };
}

const inProgress = issueInProgress;

async function findIssue(
  ctx: TaskContext,
  ports: TicketPorts,
  workspaceId: string,
  user: User,
  body: DelegateBody,
): Promise<Found> {
  const facts = (await workspaceFacts(ctx.db, workspaceId))!;
  const refuse = (refusal: "tracker_not_connected" | "codehost_not_connected") =>
    refusalError(ctx, workspaceId, refusal, { open: 0, plan: facts.plan, slots: { running: 0, queued: 0 } });
  if (body.source === "tracker") {
    if (!facts.trackerConnected) throw refuse("tracker_not_connected");
    const link = await trackerLinkOf(ctx.db, workspaceId, user.email);
    if (!link.identity || !link.bound)
      throw domainError(
        "tracker_identity_unlinked",
        link.identity
          ? `your tracker identity is not bound to this workspace's tracker; link it again: open /install/tracker?workspace=${workspaceId} on this service in your browser`
          : `link your tracker identity first (open /install/tracker?workspace=${workspaceId} on this service in your browser); the issue is delegated as you`,
      );
    const identity = link.identity;
    const issue = await ports.tracker.findIssue({ workspaceId, identity, idOrIdentifier: body.id });
    if (!issue) throw domainError("not_found", `no tracker issue ${body.id} in this workspace`);
    return {
      source: "tracker",
      issue: { ...issue, isPullRequest: false, repo: null },
      as: identity,
      number: null,
      claim: (taskId) => ports.tracker.claimIssue({ workspaceId, issueId: issue.id, identity, taskId }),
    };
  }
  const login = user.codehostLogin;
  if (!login)
    throw domainError(
      "codehost_account_missing",
      "link a code-host account first; the issue is delegated as you",
    );
  if (!facts.codehostConnected) throw refuse("codehost_not_connected");
  if (!(await enabledReposOf(ctx.db, workspaceId)).has(body.repo))
    throw domainError("invalid_repo", `${body.repo} is not enabled in this workspace`);
  const issue = await ports.codehost.findIssue({ workspaceId, repo: body.repo, number: body.number });
  if (!issue) throw domainError("not_found", `no issue ${body.repo}#${body.number}`);
  return {
    source: "codehost",
    issue: { ...issue, identifier: codehostIdentifier(issue) },
    as: login,
    number: issue.number,
    claim: (taskId) =>
      ports.codehost.claimIssue({ workspaceId, repo: issue.repo, number: issue.number, login, taskId }),
  };
}
