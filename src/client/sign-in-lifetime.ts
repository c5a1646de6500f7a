// How long a saved sign-in lasts (reference rule 8 and section 2 "Connected app"): 90 days from signing in, or
// until 30 days pass without use; then the client asks to log in again. lastUsedAt is rewritten at most once an
// hour, so most commands read the file and never write it. Pure: the caller passes the clock.
import type { SavedConfig } from "./config-schema.js";

const DAY_MS = 24 * 60 * 60 * 1000;

export const SIGN_IN_LIFETIME = {
  maxDays: 90,
  unusedDays: 30,
  /** lastUsedAt is only as precise as this: the file is not rewritten on every command. */
  touchEveryMs: 60 * 60 * 1000,
} as const;

export type Freshness = { fresh: true } | { fresh: false; why: string };

/**
 * A browser sign-in lapses after 90 days or 30 unused; a personal access token carries its own expiry (30, 90
 * or 365 days, chosen when it was made), which the service enforces with 401 invalid_token.
 */
export function checkSignInFresh(config: SavedConfig, nowMs: number): Freshness {
  if (config.kind !== "signin") return { fresh: true };
  const signedIn = Date.parse(config.signedInAt);
  const lastUsed = Date.parse(config.lastUsedAt);
  if (nowMs - signedIn >= SIGN_IN_LIFETIME.maxDays * DAY_MS) {
    return { fresh: false, why: `your sign-in is more than ${SIGN_IN_LIFETIME.maxDays} days old` };
  }
  if (nowMs - lastUsed >= SIGN_IN_LIFETIME.unusedDays * DAY_MS) {
    return { fresh: false, why: `your sign-in has not been used for ${SIGN_IN_LIFETIME.unusedDays} days` };
  }
  if (config.expiresAt && nowMs >= Date.parse(config.expiresAt)) {
    return { fresh: false, why: "your sign-in has expired" };
  }
  return { fresh: true };
}

/** Whether this use should be written down (lastUsedAt is older than the precision kept). */
export function needsTouch(config: SavedConfig, nowMs: number): boolean {
  return nowMs - Date.parse(config.lastUsedAt) >= SIGN_IN_LIFETIME.touchEveryMs;
}
