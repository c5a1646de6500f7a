// Rate limits shared by every instance: a fixed-window counter per key in the store, counted with one atomic
// upsert, so concurrent hits on any number of instances add up exactly (none lost, none counted twice).
import type { Queryable } from "./store.js";

/** The counters' table on both engines; the migration that adds it uses this same text. */
export const RATE_WINDOWS_DDL = `CREATE TABLE rate_windows (
  key TEXT NOT NULL,
  window_start_ms BIGINT NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (key, window_start_ms)
)`;

export interface RateDecision {
  allowed: boolean;
  /** Hits still allowed in this window after this one. */
  remaining: number;
  /** When this window ends and the next starts with no hits, in milliseconds since the epoch. */
  resetAtMs: number;
}

/** The start of the fixed window `now` falls in: windows are aligned to multiples of `windowMs`. */
export function windowStartFor(now: number, windowMs: number): number {
  return now - (now % windowMs);
}

/** Judges the `hits`-th hit of a window (counting this one) against `limit`. */
export function judgeHit(hits: number, limit: number, windowStartMs: number, windowMs: number): RateDecision {
  return {
    allowed: hits <= limit,
    remaining: Math.max(0, limit - hits),
    resetAtMs: windowStartMs + windowMs,
  };
}

/**
 * Counts one hit on `key` in the window `now` falls in and says whether it is within `limit`. Refused hits
 * count too (a client that keeps trying stays refused until the window ends).
 */
export async function hit(
  db: Queryable,
  key: string,
  windowMs: number,
  limit: number,
  now: number,
): Promise<RateDecision> {
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) {
    throw new RangeError(`the rate window must be a positive whole number of milliseconds, not ${windowMs}`);
  }
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`the rate limit must be a whole number of hits, 0 or more, not ${limit}`);
  }
  const start = windowStartFor(Math.floor(now), windowMs);
  const row = await db.get<{ hits: number }>(
    "INSERT INTO rate_windows (key, window_start_ms, hits) VALUES (?, ?, 1) " +
      "ON CONFLICT (key, window_start_ms) DO UPDATE SET hits = rate_windows.hits + 1 RETURNING hits",
    [key, start],
  );
  return judgeHit(Number(row!.hits), limit, start, windowMs);
}

/**
 * Deletes the windows that started more than `keepMs` before `now`; returns how many. Pass the longest window
 * any limit uses as `keepMs`: every window older than that has ended, and no hit will count in it again.
 */
export async function sweepRateWindows(db: Queryable, now: number, keepMs: number): Promise<number> {
  const { changes } = await db.run("DELETE FROM rate_windows WHERE window_start_ms < ?", [now - keepMs]);
  return changes;
}
