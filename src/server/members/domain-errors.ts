// What the members surface (`/workspaces`, personal access tokens) answers for each domain refusal: the same codes
// as the sandbox side (transport/wire.ts), which the capability pages and `baton` already know; the task and
// ticket codes belong to the public API. One table, so the two cannot drift apart.
import { OPS_DOMAIN_ANSWERS } from "../ops/domain-errors.js";

export const MEMBER_DOMAIN_ANSWERS = OPS_DOMAIN_ANSWERS;
