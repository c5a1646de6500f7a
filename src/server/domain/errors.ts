// The one error of the service's domain (tasks, tickets, auth, capability requests, operations): a stable code, a
// reason that says what to fix, and the fields some codes carry. It knows no surface: each surface maps it in one
// table (the public API: surfaces/api/errors.ts; ops, admin and members: their domain-errors.ts; MCP: a tool result).

/** Every code a domain function refuses with; each surface has an answer for each. */
export const DOMAIN_ERROR_CODES = [
  "invalid_prompt",
  "invalid_title",
  "invalid_repo",
  "invalid_idempotency_key",
  "invalid_status",
  "invalid_limit",
  "invalid_cursor",
  "invalid_request",
  "invalid_token",
  "rollout_disabled",
  "forbidden",
  "billing_inactive",
  "not_found",
  "no_matching_request",
  "not_running",
  "not_an_api_task",
  "idempotency_conflict",
  "request_closed",
  "secret_hosts_mismatch",
  "codehost_not_connected",
  "tracker_identity_unlinked",
  "tracker_not_connected",
  "codehost_account_missing",
  "ticket_closed",
  "ticket_is_pull_request",
  "ticket_assigned_elsewhere",
  "ticket_in_progress",
  "payload_too_large",
  "too_many_running",
  "queue_full",
  "bad_request",
  "internal",
  "unavailable",
] as const;
export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorDetails {
  limit?: number;
  plan?: string;
  running?: number;
  queued?: number;
  refusal?: string;
  billingUrl?: string;
  settingsUrl?: string;
  taskId?: string;
  messageId?: string;
}

export class DomainError extends Error {
  override readonly name = "DomainError";
  constructor(
    readonly code: DomainErrorCode,
    readonly reason: string,
    readonly details: DomainErrorDetails = {},
  ) {
    super(reason);
  }
}

export const domainError = (
  code: DomainErrorCode,
  reason: string,
  details?: DomainErrorDetails,
): DomainError => new DomainError(code, reason, details);
