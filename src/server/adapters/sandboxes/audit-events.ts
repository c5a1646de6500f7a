// Which audit event a sandbox lifecycle transition is: lost boxes by their reason, the rest by the state they
// reach. The manager logs each transition it applies through here, so every box change is one audit line.

import {
  AUDIT_EVENTS,
  type AuditEvent,
  type AuditLog,
  logAuditEvent,
  SERVICE_ACTOR,
} from "../../../audit/events.js";
import type { Transition } from "./lifecycle.js";

export function sandboxEventOf(transition: Transition): AuditEvent | null {
  if (transition.reason === "lost") return AUDIT_EVENTS.sandboxLost;
  switch (transition.to) {
    case "stopped":
      return AUDIT_EVENTS.sandboxStopped;
    case "archived":
      return AUDIT_EVENTS.sandboxArchived;
    case "running":
      return AUDIT_EVENTS.sandboxResumed;
    case "deleted":
      return AUDIT_EVENTS.sandboxDeleted;
    default:
      return null;
  }
}

export function logSandboxTransition(
  log: AuditLog,
  box: { sandboxId: string; workspaceId: string; engagementId: string },
  transition: Transition,
): void {
  const event = sandboxEventOf(transition);
  const fields = {
    actor: SERVICE_ACTOR,
    workspace: box.workspaceId,
    sandboxId: box.sandboxId,
    engagementId: box.engagementId,
    from: transition.from,
    to: transition.to,
    reason: transition.reason,
  };
  // eligible_for_deletion is bookkeeping, not a change to the box: the line the manager always wrote.
  if (event === null) log.info(fields, "sandbox transition");
  else logAuditEvent(log, event, fields);
}

export function logSandboxCreated(
  log: AuditLog,
  box: { sandboxId: string; workspaceId: string; engagementId: string; driver: string; image: string },
): void {
  logAuditEvent(log, AUDIT_EVENTS.sandboxCreated, {
    actor: SERVICE_ACTOR,
    workspace: box.workspaceId,
    sandboxId: box.sandboxId,
    engagementId: box.engagementId,
    driver: box.driver,
    image: box.image,
  });
}
