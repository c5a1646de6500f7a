// The answers of the surfaces that speak the operations transport's wire (transport/wire.ts): the sandbox's `/ops/v1`
// and the members' `/workspaces` answer every domain refusal alike, the admin API a subset. The task and ticket
// codes belong to the public API's routes, which these surfaces do not serve.
import { CAPABILITY_WIRE_ERRORS, WIRE_ERRORS } from "../../../transport/wire.js";
import { type DomainAnswers, NOT_ON_THIS_SURFACE as NONE } from "./domain-errors.js";

export const WIRE_DOMAIN_ANSWERS = {
  invalid_prompt: NONE,
  invalid_title: NONE,
  invalid_repo: { status: 400, error: WIRE_ERRORS.invalidRepo },
  invalid_idempotency_key: { status: 400, error: WIRE_ERRORS.invalidIdempotencyKey },
  invalid_status: NONE,
  invalid_limit: NONE,
  invalid_cursor: NONE,
  invalid_request: { status: 400, error: WIRE_ERRORS.invalidRequest },
  invalid_token: { status: 401, error: WIRE_ERRORS.invalidToken },
  rollout_disabled: { status: 403, error: WIRE_ERRORS.rolloutDisabled },
  forbidden: { status: 403, error: WIRE_ERRORS.forbidden },
  billing_inactive: NONE,
  not_found: { status: 404, error: WIRE_ERRORS.notFound },
  no_matching_request: { status: 404, error: CAPABILITY_WIRE_ERRORS.noMatchingRequest },
  not_running: NONE,
  not_an_api_task: NONE,
  idempotency_conflict: { status: 409, error: WIRE_ERRORS.idempotencyConflict },
  request_closed: { status: 409, error: CAPABILITY_WIRE_ERRORS.requestClosed },
  secret_hosts_mismatch: { status: 400, error: CAPABILITY_WIRE_ERRORS.secretHostsMismatch },
  codehost_not_connected: NONE,
  tracker_identity_unlinked: NONE,
  tracker_not_connected: NONE,
  codehost_account_missing: NONE,
  ticket_closed: NONE,
  ticket_is_pull_request: NONE,
  ticket_assigned_elsewhere: NONE,
  ticket_in_progress: NONE,
  payload_too_large: NONE,
  too_many_running: NONE,
  queue_full: NONE,
  bad_request: NONE,
  internal: { status: 500, error: WIRE_ERRORS.internal },
  unavailable: NONE,
} satisfies DomainAnswers;
