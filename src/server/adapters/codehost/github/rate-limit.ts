// What a GitHub answer says about its rate limits (docs "Rate limits for the REST API", "Best practices"): the
// primary limit is spent when a 403/429 carries `x-ratelimit-remaining: 0` (wait until `x-ratelimit-reset`, epoch
// seconds); a secondary limit is a 403/429 with `retry-after` (seconds), or one whose message names a secondary
// rate limit without it (wait at least a minute). Pure: the REST client decides and sleeps.

export const SECONDARY_MIN_WAIT_MS = 60_000;

export type RateLimit =
  | { kind: "none" }
  | { kind: "primary"; waitMs: number; until: Date }
  | { kind: "secondary"; waitMs: number; until: Date };

export interface AnswerFacts {
  status: number;
  /** Header lookup, case-insensitive (a fetch Headers' `get`). */
  header: (name: string) => string | null;
  /** The answer's `message`, when its body had one. */
  message: string | undefined;
}

export function classifyRateLimit(answer: AnswerFacts, now: Date): RateLimit {
  if (answer.status !== 403 && answer.status !== 429) return { kind: "none" };
  const at = (ms: number) => new Date(now.getTime() + ms);
  const retryAfter = answer.header("retry-after");
  if (retryAfter !== null && /^\d+$/.test(retryAfter.trim())) {
    // GitHub's advice: `retry-after`, when present, is the wait, whichever limit was hit.
    const waitMs = Number(retryAfter.trim()) * 1000;
    const kind = answer.header("x-ratelimit-remaining")?.trim() === "0" ? "primary" : "secondary";
    return { kind, waitMs, until: at(waitMs) };
  }
  if (answer.header("x-ratelimit-remaining")?.trim() === "0") {
    const reset = Number(answer.header("x-ratelimit-reset"));
    // No usable reset: wait as for a secondary limit rather than hammer.
    const waitMs =
      Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - now.getTime()) : SECONDARY_MIN_WAIT_MS;
    return { kind: "primary", waitMs, until: at(waitMs) };
  }
  if (/secondary rate limit/i.test(answer.message ?? ""))
    return { kind: "secondary", waitMs: SECONDARY_MIN_WAIT_MS, until: at(SECONDARY_MIN_WAIT_MS) };
  return { kind: "none" };
}

/** Wait `waitMs` when it is within `maxWaitMs`; otherwise give up and say when to try again. */
export function decideRateLimitWait(
  limit: Exclude<RateLimit, { kind: "none" }>,
  maxWaitMs: number,
): { wait: true; ms: number } | { wait: false; message: string } {
  if (limit.waitMs <= maxWaitMs) return { wait: true, ms: limit.waitMs };
  const which = limit.kind === "primary" ? "its hourly rate limit" : "a secondary rate limit";
  return {
    wait: false,
    message: `the code host's API refused the call under ${which}; try again after ${limit.until.toISOString()}`,
  };
}
