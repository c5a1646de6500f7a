// The one typed error of the public API: it knows its status (from the wire table), its `error` code, a reason
// that says what to fix, and the extra body fields some codes carry (limit, taskId, messageId, billingUrl...).
import { HEADERS } from "../../transport/wire.js";
import { HttpError } from "../http/http-error.js";
import { API_ERRORS, type ApiErrorCode } from "./wire.js";

export interface ApiErrorDetails {
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

export class ApiError extends HttpError {
  constructor(
    readonly code: ApiErrorCode,
    reason: string,
    readonly details: ApiErrorDetails = {},
    headers: Record<string, string> = {},
  ) {
    super(API_ERRORS[code], code, reason, headers);
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
