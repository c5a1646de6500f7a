// The one typed error of the public API: it knows its status (from the wire table), its `error` code, a reason
// that says what to fix, the extra body fields some codes carry (limit, taskId, messageId, billingUrl...), and
// its headers (Retry-After on every 429).
import { HEADERS } from "../../transport/wire.js";
import type { DomainError, DomainErrorDetails } from "../domain/errors.js";
import { HttpError } from "../http/http-error.js";
import { API_ERRORS, API_HEADERS, type ApiErrorCode, LIMITS } from "./wire.js";

/** The fields some codes carry: the domain's (domain/errors.ts), answered as they are. */
export type ApiErrorDetails = DomainErrorDetails;

export class ApiError extends HttpError {
  constructor(
    readonly code: ApiErrorCode,
    reason: string,
    readonly details: ApiErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    // Every 429 carries Retry-After (DESIGN): the rate limiter gives its exact wait; a refusal that waits for a
    // task to end (too_many_running, queue_full) cannot know it and gives the polite default.
    const status = API_ERRORS[code];
    super(
      status,
      code,
      reason,
      status === 429 && !(API_HEADERS.retryAfter in headers)
        ? { ...headers, [API_HEADERS.retryAfter]: String(LIMITS.busyRetryAfterSeconds) }
        : headers,
    );
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

export const apiError = (code: ApiErrorCode, reason: string, details?: ApiErrorDetails): ApiError =>
  new ApiError(code, reason, details);

/** The public API's answer to a domain refusal: the same code, reason and fields, with the code's status. */
export const apiErrorOf = (error: DomainError): ApiError =>
  new ApiError(error.code, error.reason, error.details);
