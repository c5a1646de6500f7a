// What the ops surface (`/ops/v1`, the sandbox's client) answers for each domain refusal: the operations
// transport's wire codes (surfaces/http/wire-domain-answers.ts).
import { WIRE_DOMAIN_ANSWERS } from "../http/wire-domain-answers.js";

export const OPS_DOMAIN_ANSWERS = WIRE_DOMAIN_ANSWERS;
