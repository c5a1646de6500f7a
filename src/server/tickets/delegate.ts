// POST /v1/workspaces/{id}/tickets/delegate: hands an existing issue to the service as the caller. Refusals say
// what to fix; a full queue refuses before the issue is touched. The task runs like any other (plan slots, the
// queue) but its conversation belongs to the issue, so the conversation routes answer `not_an_api_task`.
import { z } from "zod";
import { apiError } from "../api/errors.js";
import { newId } from "../auth/tokens.js";
import type { Membership, User } from "../auth/users.js";
import type { TaskContext } from "../tasks/context.js";
import { checkStart } from "../tasks/decide.js";
import { newEntryId } from "../tasks/engine.js";
import { refusalError } from "../tasks/start-task.js";
import { insertEntry, insertTask, slotCounts, workspaceFacts } from "../tasks/task-store.js";
import type { IssueRow } from "./select.js";
import {
  claimIssue,
  enabledReposOf,
  findCodehostIssue,
  findTrackerIssue,
  trackerLinkOf,
} from "./ticket-store.js";

export const DelegateBodySchema = z.discriminatedUnion("source", [
  z.object({ source: z.literal("tracker"), id: z.string().min(1).max(200) }),
  z.object({
    source: z.literal("codehost"),
    repo: z.string().min(1).max(200),
    number: z.number().int().positive(),
  }),
]);
export type DelegateBody = z.infer<typeof DelegateBodySchema>;

export async function delegateTicket(
  ctx: TaskContext,
  membership: Membership,
  user: User,
  body: DelegateBody,
): Promise<{ ok: true }> {
  const { db } = ctx;
  const workspaceId = membership.workspaceId;
  const started = await ctx.commit(() => {
    const { issue, assignee } = findIssue(ctx, workspaceId, user, body);
    if (issue.isPullRequest)
      throw apiError("ticket_is_pull_request", `${issue.identifier} is a pull request; delegate an issue`);
    if (issue.state === "closed")
      throw apiError("ticket_closed", `${issue.identifier} is closed; reopen it first`);
    if (issue.taskId !== null)
      throw apiError("ticket_in_progress", `${issue.identifier} is already being worked on`);
    if (issue.assignee !== null && issue.assignee !== assignee)
      throw apiError(
        "ticket_assigned_elsewhere",
        `${issue.identifier} is assigned to someone else; unassign it first`,
      );
    const facts = workspaceFacts(db, workspaceId)!;
    const slots = slotCounts(db, workspaceId);
    const check = checkStart({
      countsAgainstUserLimit: false,
      openTasksOfUser: 0,
      userLimit: 0,
      codehostConnected: facts.codehostConnected || issue.source === "tracker",
      billingActive: facts.billingActive,
      plan: facts.plan,
      slots,
    });
    if (!check.ok) throw refusalError(ctx, workspaceId, check.refusal, { open: 0, plan: facts.plan, slots });
    const now = ctx.now();
    const taskId = newId("task");
    insertTask(
      db,
      {
        id: taskId,
        workspace_id: workspaceId,
        source: issue.source === "tracker" ? "tracker" : "codehost_issue",
        status: "pending",
        title: issue.title,
        repo: issue.repo,
        created_by: user.id,
        ticket_id: issue.id,
      },
      now,
    );
    const text = [`${issue.identifier}: ${issue.title ?? "(no title)"}`, issue.context]
      .filter(Boolean)
      .join("\n\n");
    const entryId = newEntryId("user");
    insertEntry(
      db,
      {
        id: entryId,
        taskId,
        role: "user",
        kind: "message",
        body: text,
        messageId: entryId,
        authorId: user.id,
        handedOver: false,
      },
      now,
    );
    claimIssue(db, issue.id, taskId, assignee);
    return ctx.handOver(db, taskId, now);
  });
  ctx.runTurns(started);
  return { ok: true };
}

function findIssue(
  ctx: TaskContext,
  workspaceId: string,
  user: User,
  body: DelegateBody,
): { issue: IssueRow; assignee: string } {
  if (body.source === "tracker") {
    const link = trackerLinkOf(ctx.db, workspaceId, user.email);
    if (!link.identity || !link.bound)
      throw apiError(
        "tracker_identity_unlinked",
        link.identity
          ? "your tracker identity is not bound to this workspace's tracker; link it again in your settings"
          : "link your tracker identity in your settings first; the issue is delegated as you",
      );
    const issue = findTrackerIssue(ctx.db, workspaceId, body.id);
    if (!issue) throw apiError("not_found", `no tracker issue ${body.id} in this workspace`);
    return { issue, assignee: link.identity };
  }
  if (!user.codehostLogin)
    throw apiError(
      "codehost_account_missing",
      "link a code-host account first; the issue is delegated as you",
    );
  if (!enabledReposOf(ctx.db, workspaceId).has(body.repo))
    throw apiError("invalid_repo", `${body.repo} is not enabled in this workspace`);
  const issue = findCodehostIssue(ctx.db, workspaceId, body.repo, body.number);
  if (!issue) throw apiError("not_found", `no issue ${body.repo}#${body.number}`);
  return { issue, assignee: user.codehostLogin };
}
