// One idempotency key per invocation (reference section 4 "Idempotency", rule 4): made once, before the first
// try, and sent with every retry of the same request. A UUID is 36 printable characters, within 1 to 128.
import { randomUUID } from "node:crypto";

export function newIdempotencyKey(): string {
  return randomUUID();
}
