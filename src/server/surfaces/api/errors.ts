// The one typed error of the public API: it knows its status (from the wire table), its `error` code, a reason
// that says what to fix, the extra body fields some codes carry (limit, taskId, messageId, billingUrl...), and
// its headers (Retry-After on every 429).

import type { ErrorHandler } from "hono";
import { HEADERS } from "../../../transport/wire.js";
import { DomainError, type DomainErrorCode, type DomainErrorDetails } from "../../domain/errors.js";
import { HttpError } from "../http/http-error.js";
import { API_ERRORS, API_HEADERS, API_REALM, type ApiErrorCode, LIMITS } from "./wire.js";

/** The fields some codes carry: the domain's (domain/errors.ts), answered as they are. */
export type ApiErrorDetails = DomainErrorDetails;

export class ApiError extends HttpError {
  constructor(
    readonly code: ApiErrorCode,
    reason: string,
    readonly details: ApiErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    super(API_ERRORS[code], code, reason, withRequiredHeaders(API_ERRORS[code], headers));
  }

  /** `{error, reason, requestId}` plus the fields this code carries (limit, taskId, billingUrl...). */
  override toResponse(requestId: string): Response {
    return new Response(
      JSON.stringify({ error: this.error, reason: this.reason, requestId, ...this.details }),
      {
        status: this.status,
        headers: {
          "content-type": "application/json; charset=utf-8",
          ...this.headers,
          [HEADERS.requestId]: requestId,
        },
      },
    );
  }
}

/**
 * The challenge of a 401 (RFC 6750 section 3): the realm always; `error="invalid_token"` only when a credential
 * was sent, since a request without one gets no error code.
 */
export const bearerChallenge = (credentialSent: boolean): string =>
  `Bearer realm="${API_REALM}"${credentialSent ? `, error="${"invalid_token" satisfies ApiErrorCode}"` : ""}`;

/**
 * Every 429 carries Retry-After (DESIGN): the rate limiter gives its exact wait; a refusal that waits for a task
 * to end (too_many_running, queue_full) cannot know it and gives the polite default. Every 401 carries a Bearer
 * challenge; the bare one unless the thrower (the token gate, which knows whether a token was sent) gave its own.
 */
function withRequiredHeaders(status: number, headers: Record<string, string>): Record<string, string> {
  if (status === 429 && !(API_HEADERS.retryAfter in headers))
    return { ...headers, [API_HEADERS.retryAfter]: String(LIMITS.busyRetryAfterSeconds) };
  if (status === 401 && !(API_HEADERS.wwwAuthenticate in headers))
    return { ...headers, [API_HEADERS.wwwAuthenticate]: bearerChallenge(false) };
  return headers;
}

export const apiError = (code: ApiErrorCode, reason: string, details?: ApiErrorDetails): ApiError =>
  new ApiError(code, reason, details);

/**
 * The public API's code for each domain code: the same code where the reference names it. The sandbox-side codes
 * (rollout, roles, capability requests) come from domain functions no `/v1` route calls; should one ever reach
 * the API it is a service bug, answered as a 500 that names no internals.
 */
const API_ANSWERS = {
  invalid_prompt: "invalid_prompt",
  invalid_title: "invalid_title",
  invalid_repo: "invalid_repo",
  invalid_idempotency_key: "invalid_idempotency_key",
  invalid_status: "invalid_status",
  invalid_limit: "invalid_limit",
  invalid_cursor: "invalid_cursor",
  invalid_request: "invalid_request",
  invalid_token: "invalid_token",
  rollout_disabled: "internal",
  forbidden: "internal",
  billing_inactive: "billing_inactive",
  not_found: "not_found",
  no_matching_request: "internal",
  not_running: "not_running",
  not_an_api_task: "not_an_api_task",
  idempotency_conflict: "idempotency_conflict",
  request_closed: "internal",
  secret_hosts_mismatch: "internal",
  codehost_not_connected: "codehost_not_connected",
  tracker_identity_unlinked: "tracker_identity_unlinked",
  tracker_not_connected: "tracker_not_connected",
  codehost_account_missing: "codehost_account_missing",
  ticket_closed: "ticket_closed",
  ticket_is_pull_request: "ticket_is_pull_request",
  ticket_assigned_elsewhere: "ticket_assigned_elsewhere",
  ticket_in_progress: "ticket_in_progress",
  payload_too_large: "payload_too_large",
  too_many_running: "too_many_running",
  queue_full: "queue_full",
  bad_request: "bad_request",
  internal: "internal",
  unavailable: "unavailable",
} as const satisfies Record<DomainErrorCode, ApiErrorCode>;

/** The public API's answer to a domain refusal: its code's status, with the domain's reason and fields. */
export function apiErrorOf(error: DomainError): ApiError {
  const code = API_ANSWERS[error.code];
  if (code === "internal" && error.code !== "internal")
    return new ApiError(code, "the service failed; retry later");
  return new ApiError(code, error.reason, error.details);
}

/** The API sub-app's `onError`: a domain refusal becomes its ApiError, rendered by the listener's handler. */
export const answerDomainErrors: ErrorHandler = (error) => {
  throw error instanceof DomainError ? apiErrorOf(error) : error;
};
