// When the CLI's HTTP client tries again, and how long a `Retry-After` asks it to wait. Pure: no I/O.

/** The header a 429 or 503 carries (lower-case, as node:http gives header names). */
export const RETRY_AFTER_HEADER = "retry-after";

/** What a failed answer was, for a client's `classify` to turn into its own error. */
export interface HttpFailure {
  status: number;
  /** The parsed JSON body, or undefined when there was none or it was not JSON. */
  body: unknown;
  /** What the client was doing, e.g. `starting the activation of acme/api`. */
  doing: string;
  /** What a 404 means for this request, e.g. `no operation op_1 for this sandbox`; a generic text otherwise. */
  notFound?: string | undefined;
  /** The wait a 429 or 503's `Retry-After` asks for, in whole seconds, when it gave one. */
  retryAfterSeconds?: number | undefined;
}

/** Whether a status is worth another attempt with the same idempotency key. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date. Undefined when absent or unreadable;
 * never negative.
 */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * What a refusal that asks to wait ends with, said once: the service's own reason when it gave one (every 429
 * reason of Baton's says when to try again), else the `Retry-After` figure, else a minute.
 */
export function waitAdvice(reason: string | undefined, retryAfterSeconds: number | undefined): string {
  if (reason) return `: ${reason}`;
  if (retryAfterSeconds !== undefined) return `; try again in ${retryAfterSeconds} s`;
  return "; try again in a minute";
}
