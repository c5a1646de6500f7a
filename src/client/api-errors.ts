// Turns the public API's refusals into BatonErrors whose message carries the service's own `reason` (what to
// fix), and a dropped connection into a network error naming the address. Pure: no I/O.
import { type BatonError, ServiceError } from "../errors.js";
import { type HttpFailure, waitAdvice } from "../net/retry.js";
import { ApiErrorBodySchema } from "./schemas.js";

/** The facts of a refusal a command may act on (never a secret): the wire code and the ids the body names. */
export interface ApiRefusalDetails {
  status: number;
  wireError?: string;
  taskId?: string;
  messageId?: string;
  requestId?: string;
  billingUrl?: string;
  settingsUrl?: string;
}

export function mapApiFailure({ status, body, doing, notFound, retryAfterSeconds }: HttpFailure): BatonError {
  const parsed = ApiErrorBodySchema.safeParse(body);
  const data = parsed.success ? parsed.data : undefined;
  const details: ApiRefusalDetails = { status };
  for (const key of ["taskId", "messageId", "requestId", "billingUrl", "settingsUrl"] as const) {
    if (data?.[key] !== undefined) details[key] = data[key];
  }
  if (data) details.wireError = data.error;
  const tag = data ? `${status} ${data.error}` : `${status}`;
  const reason = data?.reason ? `: ${data.reason}` : "";
  const options = { status, details: { ...details } };

  if (status === 401) {
    return new ServiceError(
      "unauthorised",
      `the service refused the saved token while ${doing} (${tag})${reason}. ` +
        "It has expired or been revoked: run `baton login` to sign in again",
      options,
    );
  }
  if (status === 404) {
    const what = notFound ?? "the service found nothing by that id";
    return new ServiceError(
      "not_found",
      `${what} (${tag} while ${doing})${reason}. Ids are case-sensitive: check it, or list them with \`baton tasks\``,
      options,
    );
  }
  if (status === 400 || status === 413 || status === 422) {
    return new ServiceError("invalid_input", `the service refused ${doing} (${tag})${reason}`, options);
  }
  if (status >= 400 && status < 500 && status !== 429) {
    return new ServiceError("conflict", `the service refused ${doing} (${tag})${reason}`, options);
  }
  if (status === 429) {
    return new ServiceError(
      "service_error",
      `the service refused ${doing} for now (${tag})${waitAdvice(data?.reason, retryAfterSeconds)}`,
      options,
    );
  }
  return new ServiceError(
    "service_error",
    `the service failed while ${doing} (${tag})${reason}; try again later`,
    options,
  );
}

export function describeUnreachable(apiUrl: string, doing: string, code: string | undefined, cause: unknown) {
  return new ServiceError(
    "network",
    `could not reach the service at ${apiUrl} while ${doing}${code ? ` (${code})` : ""}. ` +
      "Check your connection and the address (baton login --api-url, or BATON_API_URL) and try again",
    { cause },
  );
}
