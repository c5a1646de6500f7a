// How long a saved sign-in lasts (reference rule 8 and section 2 "Connected app"): 90 days from signing in, or
// until 30 days pass without use; then the client asks to log in again. lastUsedAt is rewritten at most once an
// hour, so most commands read the file and never write it. Its access token lasts an hour and is renewed with the
// refresh token a few minutes before it runs out (refresh-sign-in.ts). Pure: the caller passes the clock.
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
  // A sign-in saved before refresh tokens were kept cannot renew its access token: once that lapses, it is over.
  if (config.refreshToken === null && config.expiresAt && nowMs >= Date.parse(config.expiresAt)) {
    return { fresh: false, why: "your sign-in has expired" };
  }
  return { fresh: true };
}

/** Renew this long before the access token runs out, so a command started now does not meet a 401 midway. */
export const RENEW_AHEAD_MS = 5 * 60 * 1000;

/** Whether a browser sign-in's access token should be renewed before this command uses it. */
export function needsRenewal(config: SavedConfig, nowMs: number): boolean {
  if (!canRenew(config) || config.expiresAt === null) return false;
  return nowMs >= Date.parse(config.expiresAt) - RENEW_AHEAD_MS;
}

/** Whether the saved sign-in holds what renewing its access token needs. */
export function canRenew(
  config: SavedConfig,
): config is SavedConfig & { refreshToken: string; clientId: string } {
  return config.kind === "signin" && config.refreshToken !== null && config.clientId !== null;
}

/** Whether this use should be written down (lastUsedAt is older than the precision kept). */
export function needsTouch(config: SavedConfig, nowMs: number): boolean {
  return nowMs - Date.parse(config.lastUsedAt) >= SIGN_IN_LIFETIME.touchEveryMs;
}
