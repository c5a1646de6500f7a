// Waiting in tests: poll until a condition holds or a deadline passes, never for a count of tries (a faster
// machine or CLI must not turn a test red by using up its tries before the work is done).
import { setTimeout as sleep } from "node:timers/promises";

export interface PollOptions {
  /** How long to keep trying. */
  timeoutMs: number;
  /** The pause between tries. */
  intervalMs?: number;
}

/** Reads until `done(value)` or the deadline; returns the last value read, for the caller to assert on. */
export async function pollUntil<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs, intervalMs = 100 }: PollOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await sleep(intervalMs);
  }
}
