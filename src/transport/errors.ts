// Classifies an HTTP answer from the operations service into the BatonError set. Pure: no I/O.
import { type BatonError, EnvironmentOperationError, ServiceError } from "../errors.js";
import { ErrorBodySchema, WIRE_ERRORS } from "./wire.js";

export interface HttpFailure {
  status: number;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  /** What the client was doing, e.g. `starting the activation of acme/api`. */
  doing: string;
}

/** Whether a status is worth another attempt with the same idempotency key. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

export function mapHttpFailure({ status, body, doing }: HttpFailure): BatonError {
  const parsed = ErrorBodySchema.safeParse(body);
  const code = parsed.success ? parsed.data.error : undefined;
  const reason = parsed.success && parsed.data.reason ? `: ${parsed.data.reason}` : "";
  const tag = code ? `${status} ${code}` : `${status}`;
  const details = { status, ...(code ? { wireError: code } : {}) };

  if (status === 403) {
    // Every 403 on an environment operation is the typed refusal (exit 6), as the reference asks.
    const what =
      code === WIRE_ERRORS.rolloutDisabled
        ? "repository environments are not enabled for this workspace"
        : "the service refused the environment operation";
    return new EnvironmentOperationError("rollout_disabled", `${what} while ${doing} (${tag})${reason}`, {
      details,
    });
  }
  if (status === 401) {
    return new ServiceError(
      "unauthorised",
      `the service refused the sandbox's credentials while ${doing} (${tag})${reason}. ` +
        "BATON_TURN_TOKEN or BATON_SANDBOX_LEASE is missing, wrong or expired: ask the orchestrator for a new turn.",
      { status, details },
    );
  }
  if (status === 404) {
    return new ServiceError(
      "not_found",
      `the service found nothing of this sandbox's while ${doing} (${tag})${reason}`,
      {
        status,
        details,
      },
    );
  }
  if (status === 409) {
    return new ServiceError(
      "conflict",
      `the service refused a conflicting request while ${doing} (${tag})${reason}`,
      {
        status,
        details,
      },
    );
  }
  if (status === 400 || status === 422) {
    return new ServiceError(
      "invalid_input",
      `the service refused the request while ${doing} (${tag})${reason}`,
      {
        status,
        details,
      },
    );
  }
  if (status === 429) {
    return new ServiceError(
      "service_error",
      `the service kept rate-limiting while ${doing} (${tag})${reason}; wait a minute and try again`,
      {
        status,
        details,
      },
    );
  }
  return new ServiceError(
    "service_error",
    `the service failed while ${doing} (${tag})${reason}; try again later`,
    {
      status,
      details,
    },
  );
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date. Undefined when absent or unreadable;
 * never negative.
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
