// The tracker's webhook events applied to the workspace connected to their organisation: an issue assigned to
// the app's user, or given the agent's label (by an update, or already at its creation), starts its task; moved
// to a completed or canceled state, or taken from the agent, stops its turn; a member's comment is a follow-up;
// the app revoked disconnects the workspace.
// Each returns what it did (the delivery's outcome) and is safe to re-run.
import { AUDIT_EVENTS, logAuditEvent, SERVICE_ACTOR } from "../../../audit/events.js";
import {
  connectionOfOrganization,
  removeConnection,
  type TrackerConnection,
} from "../../adapters/tracker/connections.js";
import type { IssueEventDeps } from "./issue-event-deps.js";
import { hasPostMarker, memberByTrackerIdentity } from "./issue-members.js";
import { classifyTrackerIssueCreate, classifyTrackerIssueUpdate } from "./issue-rules.js";
import { refuseOnIssue, startFromIssue } from "./issue-start.js";
import { followUpIssueTask, startedByWebhook, stopIssueTask, taskOfIssue } from "./issue-task.js";
import {
  TRACKER_TYPES,
  TrackerCommentDataSchema,
  type TrackerEnvelope,
  TrackerEnvelopeSchema,
  type TrackerIssueData,
  TrackerIssueDataSchema,
} from "./tracker-payloads.js";

export async function applyTrackerEvent(deps: IssueEventDeps, payload: unknown): Promise<string> {
  const parsed = TrackerEnvelopeSchema.safeParse(payload);
  if (!parsed.success) return "ignored: the payload lacks type, action or organizationId";
  const e = parsed.data;
  const connection = await connectionOfOrganization(deps.ctx.db, e.organizationId);
  if (!connection) return `ignored: unknown organization ${e.organizationId}`;
  if (e.type === TRACKER_TYPES.oauthApp && e.action === "revoked") {
    await deps.ctx.commit(() => removeConnection(deps.ctx.db, connection.workspaceId));
    logAuditEvent(deps.logger, AUDIT_EVENTS.trackerDisconnected, {
      actor: SERVICE_ACTOR,
      workspace: connection.workspaceId,
      organization: e.organizationId,
      via: "webhook",
    });
    return `disconnected the workspace from organization ${e.organizationId}: the app was revoked`;
  }
  // An issue created with the agent's label or assignee already on it gets only a `create` (no `update`).
  if (e.type === TRACKER_TYPES.issue && (e.action === "update" || e.action === "create")) {
    const data = TrackerIssueDataSchema.safeParse(e.data);
    return data.success
      ? onIssueChange(deps, connection, e, data.data)
      : "ignored: the Issue data lacks fields";
  }
  if (e.type === TRACKER_TYPES.comment && e.action === "create") return onComment(deps, connection, e);
  return `ignored: ${e.type} ${e.action} is not one the service acts on`;
}

async function onIssueChange(
  deps: IssueEventDeps,
  connection: TrackerConnection,
  e: TrackerEnvelope,
  data: TrackerIssueData,
): Promise<string> {
  const workspaceId = connection.workspaceId;
  const triggers = { agentUserId: connection.agentUserId, agentLabel: deps.settings.tracker.agentLabel };
  const change =
    e.action === "create"
      ? classifyTrackerIssueCreate(triggers, data)
      : classifyTrackerIssueUpdate(triggers, data, e.updatedFrom ?? {});
  if (change.kind === "none")
    return e.action === "create"
      ? `ignored: ${data.identifier} was not created the agent's (neither its label nor assigned to its user)`
      : `ignored: the update neither gives ${data.identifier} to the agent nor takes it`;
  if (change.kind === "take") {
    const task = await taskOfIssue(deps.ctx, workspaceId, "tracker", data.id);
    if (!task) return `ignored: ${data.identifier} has no task`;
    if ("byLabel" in change && !(await startedByWebhook(deps.ctx, task.id)))
      return `ignored: a label removed from ${data.identifier}, whose task a member delegated`;
    const actor = await (e.actor ? memberByTrackerIdentity(deps.ctx.db, workspaceId, e.actor.id) : undefined);
    const by = actor?.name ?? e.actor?.name ?? "the tracker";
    const stopped = await stopIssueTask(deps.ctx, task.id, `${by} (${change.why})`);
    return stopped
      ? `stopped task ${task.id}: ${data.identifier} ${change.why}`
      : `ignored: task ${task.id} has no running or queued turn`;
  }
  const post = (body: string) => deps.tracker.postComment({ workspaceId, issueId: data.id, body });
  const user = await (e.actor ? memberByTrackerIdentity(deps.ctx.db, workspaceId, e.actor.id) : undefined);
  if (!user)
    return refuseOnIssue(
      post,
      `${e.actor?.name ?? "whoever gave it"} is not a member of the workspace with a linked tracker identity; a member links their tracker account in their Baton settings, then gives the issue to the agent again.`,
      `refused: actor ${e.actor?.id ?? "(none)"} is not a member`,
    );
  return await startFromIssue(deps, post, {
    workspaceId,
    source: "tracker",
    user,
    issue: {
      id: data.id,
      identifier: data.identifier,
      title: data.title ?? null,
      context: data.description ?? "",
      repo: null,
      number: null,
    },
  });
}

async function onComment(
  deps: IssueEventDeps,
  connection: TrackerConnection,
  e: TrackerEnvelope,
): Promise<string> {
  const parsed = TrackerCommentDataSchema.safeParse(e.data);
  if (!parsed.success) return "ignored: the Comment data lacks fields";
  const c = parsed.data;
  const author = c.userId ?? e.actor?.id ?? null;
  if (hasPostMarker(c.body) || (author !== null && author === connection.agentUserId))
    return "ignored: the service's own comment";
  const task = await taskOfIssue(deps.ctx, connection.workspaceId, "tracker", c.issueId);
  if (!task) return `ignored: issue ${c.issueId} has no task`;
  const user = await (author
    ? memberByTrackerIdentity(deps.ctx.db, connection.workspaceId, author)
    : undefined);
  if (!user) return `ignored: comment by ${author ?? "(unknown)"}, not a member`;
  const text = c.body.trim();
  if (text === "") return "ignored: an empty comment";
  const { added } = await followUpIssueTask(deps.ctx, {
    taskId: task.id,
    userId: user.id,
    text,
    key: `tracker-comment:${c.id}`,
  });
  return added
    ? `follow-up on task ${task.id} from comment ${c.id}`
    : `ignored: comment ${c.id} already taken`;
}
