// The tracker's webhook events applied to the workspace connected to their organisation: an issue assigned to
// the app's user, or given the agent's label, starts its task; moved to a completed or canceled state, or taken
// from the agent, stops its turn; a member's comment is a follow-up; the app revoked disconnects the workspace.
// Each returns what it did (the delivery's outcome) and is safe to re-run.
import { AUDIT_EVENTS, logAuditEvent, SERVICE_ACTOR } from "../audit/events.js";
import {
  connectionOfOrganization,
  removeConnection,
  type TrackerConnection,
} from "../tracker/connections.js";
import type { IssueEventDeps } from "./issue-event-deps.js";
import { hasPostMarker, memberByTrackerIdentity } from "./issue-members.js";
import { refuseOnIssue, startFromIssue } from "./issue-start.js";
import { followUpIssueTask, stopIssueTask, taskOfIssue } from "./issue-task.js";
import {
  TRACKER_ENDED_STATE_TYPES,
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
  const connection = connectionOfOrganization(deps.ctx.db, e.organizationId);
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
  if (e.type === TRACKER_TYPES.issue && e.action === "update") {
    const data = TrackerIssueDataSchema.safeParse(e.data);
    return data.success
      ? onIssueUpdate(deps, connection, e, data.data)
      : "ignored: the Issue data lacks fields";
  }
  if (e.type === TRACKER_TYPES.comment && e.action === "create") return onComment(deps, connection, e);
  return `ignored: ${e.type} ${e.action} is not one the service acts on`;
}

/** Whether the issue, as `data` shows it now, is the agent's: assigned to the app's user, or labelled. */
function isAgents(connection: TrackerConnection, label: string, data: TrackerIssueData): boolean {
  return (
    (connection.agentUserId !== null && data.assigneeId === connection.agentUserId) ||
    (data.labels ?? []).some((l) => l.name.toLowerCase() === label.toLowerCase())
  );
}

/** Whether the issue was the agent's before this update (`updatedFrom` holds the changed fields' old values). */
function wasAgents(
  connection: TrackerConnection,
  label: string,
  data: TrackerIssueData,
  before: Record<string, unknown>,
) {
  const assignee = "assigneeId" in before ? before.assigneeId : data.assigneeId;
  const agentLabelId = (data.labels ?? []).find((l) => l.name.toLowerCase() === label.toLowerCase())?.id;
  const labelIds = Array.isArray(before.labelIds) ? (before.labelIds as string[]) : (data.labelIds ?? []);
  return (
    (connection.agentUserId !== null && assignee === connection.agentUserId) ||
    (agentLabelId !== undefined && labelIds.includes(agentLabelId))
  );
}

async function onIssueUpdate(
  deps: IssueEventDeps,
  connection: TrackerConnection,
  e: TrackerEnvelope,
  data: TrackerIssueData,
): Promise<string> {
  const before = e.updatedFrom ?? {};
  const label = deps.settings.tracker.agentLabel;
  const workspaceId = connection.workspaceId;
  const task = taskOfIssue(deps.ctx, workspaceId, "tracker", data.id);
  const ended = "stateId" in before && TRACKER_ENDED_STATE_TYPES.includes(data.state?.type ?? "");
  const agentsNow = isAgents(connection, label, data);
  const touched = "assigneeId" in before || "labelIds" in before;
  if (task && (ended || (touched && !agentsNow))) {
    const actor = e.actor ? memberByTrackerIdentity(deps.ctx.db, workspaceId, e.actor.id) : undefined;
    const by = actor?.name ?? e.actor?.name ?? "the tracker";
    const why = ended ? `issue ${data.state?.type}` : "issue taken from the agent";
    const stopped = await stopIssueTask(deps.ctx, task.id, `${by} (${why})`);
    return stopped
      ? `stopped task ${task.id}: ${data.identifier} ${why}`
      : `ignored: task ${task.id} has no running or queued turn`;
  }
  if (!touched || !agentsNow || wasAgents(connection, label, data, before))
    return `ignored: the update does not give ${data.identifier} to the agent`;
  if (TRACKER_ENDED_STATE_TYPES.includes(data.state?.type ?? ""))
    return `ignored: ${data.identifier} is ${data.state?.type}`;
  const post = (body: string) => deps.tracker.postComment({ workspaceId, issueId: data.id, body });
  const user = e.actor ? memberByTrackerIdentity(deps.ctx.db, workspaceId, e.actor.id) : undefined;
  if (!user)
    return refuseOnIssue(
      post,
      `${e.actor?.name ?? "whoever gave it"} is not a member of the workspace with a linked tracker identity; a member links their tracker account in their Baton settings, then gives the issue to the agent again.`,
      `refused: actor ${e.actor?.id ?? "(none)"} is not a member`,
    );
  return startFromIssue(deps, post, {
    workspaceId,
    source: "tracker",
    userId: user.id,
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
  const task = taskOfIssue(deps.ctx, connection.workspaceId, "tracker", c.issueId);
  if (!task) return `ignored: issue ${c.issueId} has no task`;
  const user = author ? memberByTrackerIdentity(deps.ctx.db, connection.workspaceId, author) : undefined;
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
