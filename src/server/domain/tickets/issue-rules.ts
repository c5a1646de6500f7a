// Which webhook changes give an issue to the agent and which take it away: pure classifiers over the platforms'
// payload fields and the triggers the operator configured (the agent's login or app user, the agent's label).
// The events modules act on what these say.
import type { TrackerIssueData } from "./tracker-payloads.js";
import { TRACKER_ENDED_STATE_TYPES } from "./tracker-payloads.js";

export type IssueChange =
  | { kind: "give" } // start the issue's task
  | { kind: "take"; why: string } // stop the task's turn
  | { kind: "none" };

const sameName = (a: string | null | undefined, b: string | null | undefined) =>
  !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** The code host's `issues` actions: assigned to / labelled for the agent gives; closed, unassigned, unlabelled takes. */
export function classifyCodehostIssuesAction(
  triggers: { agentLogin: string | null; agentLabel: string },
  event: { action: string; assignee?: string | null | undefined; label?: string | undefined },
): IssueChange {
  const { action } = event;
  if (action === "closed") return { kind: "take", why: "issue closed" };
  if (action === "assigned" && sameName(event.assignee, triggers.agentLogin)) return { kind: "give" };
  if (action === "labeled" && sameName(event.label, triggers.agentLabel)) return { kind: "give" };
  if (action === "unassigned" && sameName(event.assignee, triggers.agentLogin))
    return { kind: "take", why: "issue unassigned" };
  if (action === "unlabeled" && sameName(event.label, triggers.agentLabel))
    return { kind: "take", why: "issue unlabeled" };
  return { kind: "none" };
}

type Triggers = { agentUserId: string | null; agentLabel: string };

/**
 * The tracker's `Issue` `update` (`updatedFrom` holds the old values of the fields that changed): the issue became
 * the agent's (assigned to the app's user, or given the agent's label) gives it. A state that became completed or
 * canceled, or the assignee moved off the app's user while it is not labelled, takes it. A label removed while the
 * issue is no longer the agent's takes it `byLabel`: the payload names removed labels by id only, so the caller
 * applies that to tasks the agent's label or assignment started, never to a member's delegated issue.
 */
export function classifyTrackerIssueUpdate(
  t: Triggers,
  data: TrackerIssueData,
  before: Record<string, unknown>,
): IssueChange | { kind: "take"; why: string; byLabel: true } {
  const stateType = data.state?.type ?? "";
  if ("stateId" in before && TRACKER_ENDED_STATE_TYPES.includes(stateType))
    return { kind: "take", why: `issue ${stateType}` };
  if (!("assigneeId" in before) && !("labelIds" in before)) return { kind: "none" };
  const agentLabelId = (data.labels ?? []).find((l) => sameName(l.name, t.agentLabel))?.id;
  const labelsNow = data.labelIds ?? (data.labels ?? []).map((l) => l.id);
  const labelsBefore = Array.isArray(before.labelIds) ? (before.labelIds as string[]) : labelsNow;
  const assignedNow = t.agentUserId !== null && data.assigneeId === t.agentUserId;
  const assignedBefore =
    t.agentUserId !== null &&
    ("assigneeId" in before ? before.assigneeId : data.assigneeId) === t.agentUserId;
  const labelledNow = agentLabelId !== undefined;
  const labelledBefore = agentLabelId !== undefined && labelsBefore.includes(agentLabelId);
  if (assignedNow || labelledNow) {
    if (assignedBefore || labelledBefore || TRACKER_ENDED_STATE_TYPES.includes(stateType))
      return { kind: "none" };
    return { kind: "give" };
  }
  if (assignedBefore) return { kind: "take", why: "issue unassigned from the agent" };
  const removed = labelsBefore.some((id) => !labelsNow.includes(id));
  return removed ? { kind: "take", why: "label removed", byLabel: true } : { kind: "none" };
}

/** What a creation changed from: nothing was assigned and no label was on the issue. */
const BEFORE_CREATION: Record<string, unknown> = { assigneeId: null, labelIds: [] };

/**
 * The tracker's `Issue` `create`: an issue created already the agent's (assigned to the app's user, or carrying the
 * agent's label) gives it. Linear sends no `update` for the fields an issue is created with, so the creation is read
 * as an update from nothing and gives exactly what adding the same assignee or label later would; an issue created
 * completed or canceled gives nothing, and a creation never takes anything away.
 */
export function classifyTrackerIssueCreate(t: Triggers, data: TrackerIssueData): IssueChange {
  const change = classifyTrackerIssueUpdate(t, data, BEFORE_CREATION);
  return change.kind === "give" ? change : { kind: "none" };
}
