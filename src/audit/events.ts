// The security events `baton serve` and `baton proxy` log at info level, one JSON line each (pino), and the one
// function that writes them. The `event` field is the wire name operators filter on; nothing else spells them.
// Fields name who and what (request id, actor, workspace, ids, a secret's name), never a token or secret value.

export const AUDIT_EVENTS = {
  tokenCreated: "token.created",
  tokenRevoked: "token.revoked",
  adminCall: "admin.call",
  credentialFailed: "credential.failed",
  credentialThrottled: "credential.throttled",
  secretWritten: "secret.written",
  capabilityDismissed: "capability.dismissed",
  sandboxCreated: "sandbox.created",
  sandboxStopped: "sandbox.stopped",
  sandboxArchived: "sandbox.archived",
  sandboxLost: "sandbox.lost",
  sandboxResumed: "sandbox.resumed",
  sandboxDeleted: "sandbox.deleted",
  taskStarted: "task.started",
  taskStopped: "task.stopped",
  workspaceAgentChosen: "workspace.agent_chosen",
  webhookRejected: "webhook.rejected",
  codehostInstalled: "codehost.installed",
  /** The install callback refused: no code, a code the code host refused, or an installation not the installer's. */
  codehostInstallRefused: "codehost.install_refused",
  codehostUninstalled: "codehost.uninstalled",
  trackerConnected: "tracker.connected",
  trackerDisconnected: "tracker.disconnected",
  trackerIdentityLinked: "tracker.identity_linked",
} as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[keyof typeof AUDIT_EVENTS];

/** Who acted: `admin` (the admin token), a member's e-mail, `sandbox:<id>`, or `service` (sweeps, recovery). */
export const SERVICE_ACTOR = "service";
export const ADMIN_ACTOR = "admin";

export interface AuditFields {
  requestId?: string | undefined;
  actor?: string | undefined;
  workspace?: string | undefined;
  [field: string]: string | number | boolean | null | undefined;
}

/** The narrow part of pino's Logger an event needs, so domain code and tests can pass any logger. */
export interface AuditLog {
  info(fields: Record<string, unknown>, message: string): void;
}

export function logAuditEvent(log: AuditLog, event: AuditEvent, fields: AuditFields): void {
  const line: Record<string, unknown> = { event };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) line[name] = value;
  log.info(line, event);
}
