// How often a long-poll looks at the store when no notification wakes it (BATON_WAKE_POLL_MS): the most a
// lost notification costs a waiter. Pure: the environment is passed in.
import { ConfigError } from "../errors.js";
import { DEFAULT_WAKE_POLL_MS } from "./store/wake-channels.js";

export const WAKE_POLL_ENV = "BATON_WAKE_POLL_MS";
export const WAKE_POLL_RANGE_MS = { min: 50, max: 60_000 } as const;

/** The fallback poll interval in milliseconds: BATON_WAKE_POLL_MS when set, else the default (2000). */
export function wakePollFrom(env: NodeJS.ProcessEnv): number {
  const raw = env[WAKE_POLL_ENV]?.trim();
  if (!raw) return DEFAULT_WAKE_POLL_MS;
  const value = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= WAKE_POLL_RANGE_MS.min && value <= WAKE_POLL_RANGE_MS.max))
    throw new ConfigError(
      `${WAKE_POLL_ENV} must be a whole number of milliseconds from ${WAKE_POLL_RANGE_MS.min} to ${WAKE_POLL_RANGE_MS.max} (default ${DEFAULT_WAKE_POLL_MS}), not "${raw.slice(0, 20)}"`,
    );
  return value;
}
