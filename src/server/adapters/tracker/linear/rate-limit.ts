// Whether a failed GraphQL call is worth another try and how long to wait first: pure over the answer's status,
// Linear's error codes, its headers and the clock. Rate limiting (HTTP 429, or `extensions.code: RATELIMITED`)
// waits until `X-RateLimit-Requests-Reset` (epoch ms) or `Retry-After`; a wait over the setting's bound is not
// worth it (the caller is a person waiting on a page or an API call), so the error goes up instead.
import { LINEAR_RATE_LIMIT } from "./wire.js";

export type RetryDecision =
  | { retry: false; rateLimited: boolean; waitMs?: number }
  | { retry: true; rateLimited: boolean; waitMs: number };

export interface AnswerFacts {
  /** Undefined: no answer (the connection failed). */
  status: number | undefined;
  errorCodes: readonly string[];
  header: (name: string) => string | null;
  nowMs: number;
}

/** Wait this long when a rate-limited answer names no reset time. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 1_000;

export function decideRetry(facts: AnswerFacts, maxRateLimitWaitMs: number): RetryDecision {
  const rateLimited =
    facts.status === LINEAR_RATE_LIMIT.status || facts.errorCodes.includes(LINEAR_RATE_LIMIT.errorCode);
  if (rateLimited) {
    const waitMs = rateLimitWaitMs(facts.header, facts.nowMs);
    return waitMs <= maxRateLimitWaitMs
      ? { retry: true, rateLimited, waitMs }
      : { retry: false, rateLimited, waitMs };
  }
  if (facts.status === undefined || facts.status >= 500) return { retry: true, rateLimited, waitMs: 0 };
  return { retry: false, rateLimited };
}

/** How long until the budget refills, from the reset header, else Retry-After, else the default. */
export function rateLimitWaitMs(header: (name: string) => string | null, nowMs: number): number {
  const reset = Number(header(LINEAR_RATE_LIMIT.resetHeader) ?? Number.NaN);
  if (Number.isFinite(reset) && reset > 0) {
    // Linear sends epoch milliseconds; a value in seconds is read as such rather than as 1970.
    const resetMs = reset < 1e12 ? reset * 1000 : reset;
    return Math.max(0, resetMs - nowMs);
  }
  const retryAfter = header(LINEAR_RATE_LIMIT.retryAfterHeader);
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(retryAfter);
    if (Number.isFinite(date)) return Math.max(0, date - nowMs);
  }
  return DEFAULT_RATE_LIMIT_WAIT_MS;
}
