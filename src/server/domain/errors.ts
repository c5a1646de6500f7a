// The one error of the service's domain (tasks, tickets, API auth): a stable code, a reason that says what to fix,
// and the fields some codes carry. It knows no surface: the public API maps it to its status and body
// (api/errors.ts), and the MCP endpoint will map it to a tool result.

/** Every code a domain function refuses with; each surface has an answer for each (the API: api/wire.ts). */
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
  "billing_inactive",
  "not_found",
  "not_running",
  "not_an_api_task",
  "idempotency_conflict",
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
