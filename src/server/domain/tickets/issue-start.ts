// Starting an issue's task from a webhook, and saying on the issue why not: a refusal is posted as a comment
// (through the port; a failure to post throws, so the delivery is retried) and recorded as the outcome. A start is
// audited (`task.started`, `via` `webhook`) like every other task start, as the member it runs as.
import { AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import type { User } from "../auth/users.js";
import { DomainError } from "../errors.js";
import type { IssueEventDeps } from "./issue-event-deps.js";
import { postMarker } from "./issue-members.js";
import {
  type IssueSource,
  type IssueToStart,
  startedWith,
  startIssueTask,
  taskOfIssue,
} from "./issue-task.js";

/** The refusal comment: what happened and what to do, with the marker that makes its own webhook ignored. */
export const refusalComment = (why: string): string =>
  `Baton did not start a task for this issue: ${why}\n\n${postMarker("notice")}`;

export async function refuseOnIssue(
  post: (body: string) => Promise<void>,
  why: string,
  outcome: string,
): Promise<string> {
  await post(refusalComment(why));
  return outcome;
}

export async function startFromIssue(
  deps: IssueEventDeps,
  post: (body: string) => Promise<void>,
  input: { workspaceId: string; source: IssueSource; user: User; issue: IssueToStart },
): Promise<string> {
  const { user, ...rest } = input;
  const started = (taskId: string) => {
    // As the API audits a replay of the same key, a re-run of the same delivery is audited again.
    logAuditEvent(deps.logger, AUDIT_EVENTS.taskStarted, {
      actor: user.email,
      workspace: input.workspaceId,
      taskId,
      source: input.source,
      issue: input.issue.identifier,
      via: "webhook",
    });
    return `started task ${taskId} for ${input.issue.identifier}`;
  };
  try {
    const { taskId } = await startIssueTask(deps.ctx, {
      ...rest,
      userId: user.id,
      messageKey: deps.deliveryKey,
    });
    return started(taskId);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    // A re-run of this very delivery (a crash before its outcome was recorded) finds the task it started.
    const existing = await taskOfIssue(deps.ctx, input.workspaceId, input.source, input.issue.id);
    if (existing && deps.deliveryKey && (await startedWith(deps.ctx, existing.id, deps.deliveryKey)))
      return started(existing.id);
    const why =
      error.code === "ticket_in_progress"
        ? "it already has a task; comment here to follow up on it."
        : error.reason;
    return refuseOnIssue(post, why, `refused: ${error.code}`);
  }
}
