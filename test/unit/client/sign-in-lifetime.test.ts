// Reference rule 8: "Sign-in lasts up to 90 days or until 30 days unused; then the client asks to log in again."
// The clock is injected: days pass without waiting.
import { describe, expect, it } from "vitest";
import type { SavedConfig } from "../../../src/client/config-schema.js";
import {
  canRenew,
  checkSignInFresh,
  needsRenewal,
  needsTouch,
  RENEW_AHEAD_MS,
} from "../../../src/client/sign-in-lifetime.js";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const at = (ms: number) => new Date(ms).toISOString();

function config(
  kind: SavedConfig["kind"],
  signedInDaysAgo: number,
  lastUsedDaysAgo: number,
  now: number,
): SavedConfig {
  return {
    apiUrl: "https://baton.acme.test",
    token: "t",
    kind,
    workspace: null,
    signedInAt: at(now - signedInDaysAgo * DAY),
    lastUsedAt: at(now - lastUsedDaysAgo * DAY),
    expiresAt: null,
    refreshToken: null,
    clientId: null,
  };
}

describe("a browser sign-in lasts 90 days, or until 30 days unused", () => {
  it.each([
    [0, 0, true],
    [89, 0, true],
    [89.99, 29.99, true],
    [90, 0, false],
    [120, 1, false],
    [40, 30, false],
    [40, 29, true],
  ])("signed in %d days ago, last used %d days ago: fresh %s", (signedIn, lastUsed, fresh) => {
    expect(checkSignInFresh(config("signin", signedIn, lastUsed, T0), T0).fresh).toBe(fresh);
  });

  it("says which limit passed", () => {
    expect(checkSignInFresh(config("signin", 91, 0, T0), T0)).toEqual({
      fresh: false,
      why: "your sign-in is more than 90 days old",
    });
    expect(checkSignInFresh(config("signin", 31, 30, T0), T0)).toEqual({
      fresh: false,
      why: "your sign-in has not been used for 30 days",
    });
  });

  it("a sign-in saved without a refresh token ends when the service's expiry of its token passes", () => {
    const saved = { ...config("signin", 1, 0, T0), expiresAt: at(T0 - 1) };
    expect(checkSignInFresh(saved, T0).fresh).toBe(false);
    expect(needsRenewal(saved, T0)).toBe(false);
  });

  it("with a refresh token, a lapsed access token is renewed rather than the sign-in ended (issue 35 B.12)", () => {
    const renewable = { ...config("signin", 1, 0, T0), refreshToken: "r", clientId: "c" };
    const expiring = (inMs: number) => ({ ...renewable, expiresAt: at(T0 + inMs) });
    expect(checkSignInFresh(expiring(-1), T0).fresh).toBe(true);
    expect(needsRenewal(expiring(-1), T0)).toBe(true);
    expect(needsRenewal(expiring(RENEW_AHEAD_MS), T0)).toBe(true);
    expect(needsRenewal(expiring(RENEW_AHEAD_MS + 1), T0)).toBe(false);
    expect(canRenew(renewable)).toBe(true);
    expect(canRenew({ ...renewable, clientId: null })).toBe(false);
    expect(needsRenewal({ ...expiring(-1), clientId: null }, T0)).toBe(false);
    expect(canRenew({ ...renewable, kind: "personal" })).toBe(false);
    // The 90 days and 30 unused still end it, refresh token or not.
    expect(
      checkSignInFresh({ ...config("signin", 91, 0, T0), refreshToken: "r", clientId: "c" }, T0).fresh,
    ).toBe(false);
  });

  it("a personal access token carries its own expiry, which the service enforces", () => {
    expect(checkSignInFresh(config("personal", 200, 100, T0), T0).fresh).toBe(true);
  });
});

describe("lastUsedAt is rewritten at most once an hour", () => {
  it.each([
    [0, false],
    [59 * 60 * 1000, false],
    [60 * 60 * 1000, true],
    [DAY, true],
  ])("last used %d ms ago: rewrite %s", (ago, touch) => {
    const saved = { ...config("signin", 1, 0, T0), lastUsedAt: at(T0 - ago) };
    expect(needsTouch(saved, T0)).toBe(touch);
  });
});
