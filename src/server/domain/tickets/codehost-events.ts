// The code host's webhook events applied to the workspace of their installation: an issue given to the agent
// (assigned to the agent's login, or the agent's label) starts its task; a member's comment is a follow-up; the
// issue closed or taken from the agent stops the turn; a pull request closed marks the task; installation events
// keep the installation's records (codehost-installation-events.ts). Each returns what it did (the delivery's outcome) and is safe to re-run.
import { installationById } from "../../adapters/codehost/installations.js";
import { markPullRequestClosed, markPullRequestMerged } from "../tasks/engine.js";
import { applyInstallationEvent, applyInstallationReposEvent } from "./codehost-installation-events.js";
import {
  CODEHOST_EVENTS,
  type CodehostIssueCommentEvent,
  CodehostIssueCommentEventSchema,
  type CodehostIssuesEvent,
  CodehostIssuesEventSchema,
  CodehostPullRequestEventSchema,
} from "./codehost-payloads.js";
import type { IssueEventDeps } from "./issue-event-deps.js";
import { hasPostMarker, memberByCodehostLogin } from "./issue-members.js";
import { classifyCodehostIssuesAction } from "./issue-rules.js";
import { refuseOnIssue, startFromIssue } from "./issue-start.js";
import { followUpIssueTask, stopIssueTask, taskOfIssue } from "./issue-task.js";
import { codehostIdentifier } from "./search.js";
import { enabledReposOf } from "./ticket-store.js";

export async function applyCodehostEvent(
  deps: IssueEventDeps,
  event: string,
  payload: unknown,
): Promise<string> {
  switch (event) {
    case CODEHOST_EVENTS.issues: {
      const parsed = CodehostIssuesEventSchema.safeParse(payload);
      return parsed.success
        ? onIssues(deps, parsed.data)
        : "ignored: the issues payload lacks fields it needs";
    }
    case CODEHOST_EVENTS.issueComment: {
      const parsed = CodehostIssueCommentEventSchema.safeParse(payload);
      return parsed.success
        ? onComment(deps, parsed.data)
        : "ignored: the issue_comment payload lacks fields";
    }
    case CODEHOST_EVENTS.pullRequest:
      return onPullRequest(deps, payload);
    case CODEHOST_EVENTS.installation:
      return applyInstallationEvent(deps, payload);
    case CODEHOST_EVENTS.installationRepositories:
      return applyInstallationReposEvent(deps, payload);
    default:
      return `ignored: event ${event} is not one the service acts on`;
  }
}

/** The workspace of the delivery's installation; undefined (with why) for an unknown or suspended one. */
async function workspaceOf(
  deps: IssueEventDeps,
  installationId: number,
): Promise<{ workspaceId: string } | { ignored: string }> {
  const installation = await installationById(deps.ctx.db, String(installationId));
  if (!installation) return { ignored: `ignored: unknown installation ${installationId}` };
  if (installation.suspended) return { ignored: `ignored: installation ${installationId} is suspended` };
  return { workspaceId: installation.workspaceId };
}

async function onIssues(deps: IssueEventDeps, e: CodehostIssuesEvent): Promise<string> {
  const ws = await workspaceOf(deps, e.installation.id);
  if ("ignored" in ws) return ws.ignored;
  const repo = e.repository.full_name;
  const identifier = codehostIdentifier({ repo, number: e.issue.number });
  const issueId = String(e.issue.id);
  const change = classifyCodehostIssuesAction(deps.settings.codehost, {
    action: e.action,
    assignee: e.assignee?.login,
    label: e.label?.name,
  });
  if (change.kind === "take") {
    const task = await taskOfIssue(deps.ctx, ws.workspaceId, "codehost", issueId);
    if (!task) return `ignored: ${identifier} has no task`;
    const by =
      (await memberByCodehostLogin(deps.ctx.db, ws.workspaceId, e.sender.login))?.name ?? e.sender.login;
    const stopped = await stopIssueTask(deps.ctx, task.id, `${by} (${change.why})`);
    return stopped
      ? `stopped task ${task.id}: ${identifier} ${e.action}`
      : `ignored: task ${task.id} has no running or queued turn`;
  }
  if (change.kind === "none") return `ignored: issues ${e.action} does not give ${identifier} to the agent`;
  if (e.issue.pull_request !== undefined) return `ignored: ${identifier} is a pull request`;
  if (e.issue.state === "closed") return `ignored: ${identifier} is closed`;
  const post = (body: string) =>
    deps.codehost.postComment({ workspaceId: ws.workspaceId, repo, number: e.issue.number, body });
  const user = await memberByCodehostLogin(deps.ctx.db, ws.workspaceId, e.sender.login);
  if (!user)
    return refuseOnIssue(
      post,
      `@${e.sender.login} is not a member of the workspace with a linked code-host account; a member links their account in their Baton settings, then gives the issue to the agent again.`,
      `refused: sender ${e.sender.login} is not a member`,
    );
  if (!(await enabledReposOf(deps.ctx.db, ws.workspaceId)).has(repo))
    return refuseOnIssue(
      post,
      `${repo} is not enabled in the workspace; an owner enables it in the workspace's settings, then gives the issue to the agent again.`,
      `refused: ${repo} is not enabled`,
    );
  return startFromIssue(deps, post, {
    workspaceId: ws.workspaceId,
    source: "codehost",
    user,
    issue: {
      id: issueId,
      identifier,
      title: e.issue.title ?? null,
      context: e.issue.body ?? "",
      repo,
      number: e.issue.number,
    },
  });
}

async function onComment(deps: IssueEventDeps, e: CodehostIssueCommentEvent): Promise<string> {
  if (e.action !== "created") return `ignored: issue_comment ${e.action}`;
  const ws = await workspaceOf(deps, e.installation.id);
  if ("ignored" in ws) return ws.ignored;
  const identifier = codehostIdentifier({ repo: e.repository.full_name, number: e.issue.number });
  if (hasPostMarker(e.comment.body) || e.comment.user.type === "Bot")
    return `ignored: the service's own comment on ${identifier}`;
  const task = await taskOfIssue(deps.ctx, ws.workspaceId, "codehost", String(e.issue.id));
  if (!task) return `ignored: ${identifier} has no task`;
  const user = await memberByCodehostLogin(deps.ctx.db, ws.workspaceId, e.comment.user.login);
  if (!user) return `ignored: comment by ${e.comment.user.login}, not a member`;
  const text = (e.comment.body ?? "").trim();
  if (text === "") return "ignored: an empty comment";
  const { added } = await followUpIssueTask(deps.ctx, {
    taskId: task.id,
    userId: user.id,
    text,
    key: `codehost-comment:${e.comment.id}`,
  });
  return added
    ? `follow-up on task ${task.id} from comment ${e.comment.id}`
    : `ignored: comment ${e.comment.id} already taken`;
}

async function onPullRequest(deps: IssueEventDeps, payload: unknown): Promise<string> {
  const parsed = CodehostPullRequestEventSchema.safeParse(payload);
  if (!parsed.success) return "ignored: the pull_request payload lacks fields it needs";
  const e = parsed.data;
  if (e.action !== "closed") return `ignored: pull_request ${e.action}`;
  const ws = await workspaceOf(deps, e.installation.id);
  if ("ignored" in ws) return ws.ignored;
  const row = (await deps.ctx.db.get(
    "SELECT id FROM tasks WHERE workspace_id = ? AND repo = ? AND pr_number = ?",
    [ws.workspaceId, e.repository.full_name, e.pull_request.number],
  )) as { id: string } | undefined;
  if (!row) return `ignored: no task opened ${e.repository.full_name}#${e.pull_request.number}`;
  const merged = e.pull_request.merged === true;
  await deps.ctx.commit(() =>
    merged
      ? markPullRequestMerged(deps.ctx.db, row.id, deps.ctx.now())
      : markPullRequestClosed(deps.ctx.db, row.id, deps.ctx.now()),
  );
  return `task ${row.id}: pull request ${merged ? "merged" : "closed without merging"}`;
}
