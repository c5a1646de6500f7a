// Builds an audit record as a request comes in, and ends it: one audit line, and for a refusal made for a known
// sandbox, one report to `baton serve` (what `baton op get` and the disclosure show).
import type { AuditKind, AuditRecord } from "./audit.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import type { ProxyError } from "./wire.js";

export function startRecord(
  context: ProxyContext,
  kind: AuditKind,
  method: string,
  host: string,
  port: number | null,
): AuditRecord {
  return {
    requestId: context.newRequestId(),
    kind,
    sandbox: null,
    workspace: null,
    method,
    host,
    port,
    resolved: [],
    dialled: null,
    rule: "",
    decision: "allow",
    reason: "",
    bytesUp: 0,
    bytesDown: 0,
    durationMs: 0,
  };
}

export function withLease(record: AuditRecord, lease: LeasePolicy): void {
  record.sandbox = lease.sandboxId;
  record.workspace = lease.workspaceId;
}

export function finishRecord(context: ProxyContext, record: AuditRecord): void {
  context.audit(record);
  if (record.decision !== "allow" && record.sandbox !== null && record.error !== undefined) {
    context.refusals?.report({
      sandboxId: record.sandbox,
      requestId: record.requestId,
      at: new Date().toISOString(),
      method: record.method,
      host: record.host,
      port: record.port ?? 0,
      code: record.error,
      status: record.status ?? 0,
      reason: record.reason,
    });
  }
}

/** Ends the record of a refused request: the decision (`error` for a 5xx), its rule, reason and code, and the time. */
export function finishRefusal(
  context: ProxyContext,
  record: AuditRecord,
  refusal: { error: ProxyError; rule: string; reason: string; started: number },
): void {
  Object.assign(record, {
    decision: refusal.error.status >= 500 ? "error" : "deny",
    rule: refusal.rule,
    reason: refusal.reason,
    error: refusal.error.code,
    status: refusal.error.status,
    durationMs: Date.now() - refusal.started,
  });
  finishRecord(context, record);
}
