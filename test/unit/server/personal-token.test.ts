// Personal access tokens as plain data (reference section 2 "Access token", section 5).
import { describe, expect, it } from "vitest";
import {
  classifyToken,
  expiryFor,
  hashPersonalToken,
  isTokenLifetime,
  makePersonalToken,
  readBearerToken,
} from "../../../src/server/domain/auth/personal-token.js";

describe("personal access tokens", () => {
  it("a token is btn_<secret>, stored as a sha256 hash with its last four characters", () => {
    const made = makePersonalToken(new Uint8Array(32).fill(7));
    expect(made.token).toMatch(/^btn_[A-Za-z0-9_-]{43}$/);
    expect(made.hash).toBe(hashPersonalToken(made.token));
    expect(made.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(made.hash).not.toContain(made.token.slice(4));
    expect(made.lastFour).toBe(made.token.slice(-4));
  });

  it("refuses fewer than 32 random bytes", () => {
    expect(() => makePersonalToken(new Uint8Array(16))).toThrow(/32 random bytes/);
  });

  it.each([
    [30, true],
    [90, true],
    [365, true],
    [0, false],
    [31, false],
    [366, false],
    [-30, false],
  ])("expires after 30, 90 or 365 days (the user picks): %i -> %s", (days, ok) => {
    expect(isTokenLifetime(days)).toBe(ok);
  });

  it("expiry is creation plus the lifetime in days", () => {
    expect(expiryFor(1_000, 30)).toBe(1_000 + 30 * 86_400_000);
  });

  const token = `btn_${"a".repeat(43)}`;
  it.each([
    ["missing", null, null],
    ["empty", "", null],
    ["not bearer", `Basic ${token}`, null],
    ["no prefix", `Bearer ${"a".repeat(43)}`, null],
    ["too short", "Bearer btn_abc", null],
    ["space inside", `Bearer btn_${"a".repeat(20)} ${"b".repeat(20)}`, null],
    ["bad character", `Bearer btn_${"a".repeat(20)}!`, null],
    ["well formed", `Bearer ${token}`, token],
    ["lower-case scheme", `bearer ${token}`, token],
  ])("a missing or malformed token gets 401: %s", (_name, header, expected) => {
    expect(readBearerToken(header)).toBe(expected);
  });

  it.each([
    ["unknown", undefined, "unknown"],
    ["active", { expiresAtMs: 2000, revokedAtMs: null }, "active"],
    ["expired at the instant", { expiresAtMs: 1000, revokedAtMs: null }, "expired"],
    ["revoked before expiry", { expiresAtMs: 5000, revokedAtMs: 900 }, "revoked"],
  ] as const)("a revoked, expired or unknown token does not act: %s", (_name, row, state) => {
    expect(classifyToken(row, 1000)).toBe(state);
  });
});
