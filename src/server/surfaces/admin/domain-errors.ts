// What the admin surface (`/admin/v1`, the operator's token) answers for each domain refusal. Its routes call
// no domain function that refuses today (the sandbox manager has its own refusals: sandbox-errors.ts); the table
// makes the answer a decision the day one does.
import { type DomainAnswers, NOT_ON_THIS_SURFACE as NONE } from "../http/domain-errors.js";
import { WIRE_DOMAIN_ANSWERS } from "../http/wire-domain-answers.js";

/** The wire's answers, less the capability and rollout refusals, which belong to sandbox and member routes. */
export const ADMIN_DOMAIN_ANSWERS = {
  ...WIRE_DOMAIN_ANSWERS,
  rollout_disabled: NONE,
  forbidden: NONE,
  no_matching_request: NONE,
  request_closed: NONE,
  secret_hosts_mismatch: NONE,
} satisfies DomainAnswers;
