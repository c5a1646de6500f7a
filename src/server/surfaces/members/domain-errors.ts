// What the members surface (`/workspaces`, personal access tokens) answers for each domain refusal: the same wire
// codes as the sandbox side (surfaces/http/wire-domain-answers.ts), which the capability pages and `baton` already know.
import { WIRE_DOMAIN_ANSWERS } from "../http/wire-domain-answers.js";

export const MEMBER_DOMAIN_ANSWERS = WIRE_DOMAIN_ANSWERS;
