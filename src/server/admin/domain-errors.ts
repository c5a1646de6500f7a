// What the admin surface (`/admin/v1`, the operator's token) answers for each domain refusal. Its routes call
// no domain function that refuses today (the sandbox manager has its own refusals: sandbox-errors.ts); the table
// makes the answer a decision the day one does.
import { WIRE_ERRORS } from "../../transport/wire.js";
import { type DomainAnswers, NOT_ON_THIS_SURFACE as NONE } from "../http/domain-errors.js";

export const ADMIN_DOMAIN_ANSWERS = {
  invalid_prompt: NONE,
  invalid_title: NONE,
  invalid_repo: { status: 400, error: WIRE_ERRORS.invalidRepo },
  invalid_idempotency_key: { status: 400, error: WIRE_ERRORS.invalidIdempotencyKey },
  invalid_status: NONE,
  invalid_limit: NONE,
  invalid_cursor: NONE,
  invalid_request: { status: 400, error: WIRE_ERRORS.invalidRequest },
  invalid_token: { status: 401, error: WIRE_ERRORS.invalidToken },
  rollout_disabled: NONE,
  forbidden: NONE,
  billing_inactive: NONE,
  not_found: { status: 404, error: WIRE_ERRORS.notFound },
  no_matching_request: NONE,
  not_running: NONE,
  not_an_api_task: NONE,
  idempotency_conflict: { status: 409, error: WIRE_ERRORS.idempotencyConflict },
  request_closed: NONE,
  secret_hosts_mismatch: NONE,
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
