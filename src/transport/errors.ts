// Classifies an HTTP answer from the operations service into the BatonError set. Pure: no I/O. Each message says
// what went wrong and what to do next, never a credential.
import { type BatonError, EnvironmentOperationError, ServiceError } from "../errors.js";
import { type HttpFailure, waitAdvice } from "../net/retry.js";
import { ErrorBodySchema, WIRE_ERRORS } from "./wire.js";

export { type HttpFailure, isRetryableStatus, parseRetryAfter } from "../net/retry.js";

const CASE_HINT = "Names and ids are case-sensitive: check the spelling.";

export function mapHttpFailure({
  status,
  body,
  doing,
  notFound,
  retryAfterSeconds,
}: HttpFailure): BatonError {
  const parsed = ErrorBodySchema.safeParse(body);
  const code = parsed.success ? parsed.data.error : undefined;
  const serviceReason = parsed.success ? parsed.data.reason : undefined;
  const reason = serviceReason ? `: ${serviceReason}` : "";
  const tag = code ? `${status} ${code}` : `${status}`;
  const details = { status, ...(code ? { wireError: code } : {}) };

  if (status === 403) {
    // Every 403 on an environment operation is the typed refusal (exit 6), as the reference asks.
    if (code === WIRE_ERRORS.rolloutDisabled) {
      return new EnvironmentOperationError(
        "rollout_disabled",
        `repository environments are not enabled for this workspace (${tag} while ${doing}). ` +
          "The sandbox keeps the variables and secrets it was created with: set the project up by hand and say so " +
          "in the pull request, or ask a workspace owner or admin to enable repository environments.",
        { details },
      );
    }
    return new EnvironmentOperationError(
      "rollout_disabled",
      `the service refused the environment operation while ${doing} (${tag})${reason}. ` +
        "Carry on without it and say so in the pull request.",
      { details },
    );
  }
  if (status === 401) {
    return new ServiceError(
      "unauthorised",
      `the service refused the sandbox's credentials while ${doing} (${tag})${reason}. ${credentialFix(serviceReason)}`,
      { status, details },
    );
  }
  if (status === 404) {
    const what = notFound ?? `the service found nothing by that name for this sandbox${reason}`;
    return new ServiceError("not_found", `${what} (${tag} while ${doing}). ${CASE_HINT}`, {
      status,
      details,
    });
  }
  if (status === 409) {
    return new ServiceError(
      "conflict",
      `the service refused a conflicting request while ${doing} (${tag})${reason}`,
      { status, details },
    );
  }
  if (status === 400 || status === 422) {
    return new ServiceError(
      "invalid_input",
      `the service refused the request while ${doing} (${tag})${reason}`,
      { status, details },
    );
  }
  if (status === 429) {
    return new ServiceError(
      "service_error",
      `the service kept rate-limiting while ${doing} (${tag})${waitAdvice(serviceReason, retryAfterSeconds)}`,
      { status, details },
    );
  }
  return new ServiceError(
    "service_error",
    `the service failed while ${doing} (${tag})${reason}; try again later`,
    { status, details },
  );
}

/**
 * The fix for a 401. The lease and the turn token are different credentials: a new turn keeps the old lease,
 * so an expired lease needs a new sandbox lease, not a new turn.
 */
function credentialFix(serviceReason: string | undefined): string {
  if (serviceReason && /\blease\b/i.test(serviceReason) && /expired/i.test(serviceReason)) {
    return "BATON_SANDBOX_LEASE has expired, and a new turn does not renew it: ask the orchestrator for a new sandbox lease.";
  }
  if (serviceReason && /\bturn\b/i.test(serviceReason) && /expired/i.test(serviceReason)) {
    return "BATON_TURN_TOKEN has expired: ask the orchestrator for a new turn token (the sandbox lease stays valid).";
  }
  return (
    "BATON_TURN_TOKEN or BATON_SANDBOX_LEASE is missing, wrong, expired or of another sandbox: export the pair " +
    "the orchestrator gave this sandbox. An expired lease needs a new sandbox lease (a new turn does not renew " +
    "it); an expired turn token needs a new turn."
  );
}
