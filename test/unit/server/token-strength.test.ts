// An operator token (BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN) must hold at least 32 random bytes' worth: `baton serve`
// refuses a weaker one at start. The rule is a pure function over the token's text.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { weaknessOf } from "../../../src/server/domain/auth/token-strength.js";

describe("weaknessOf (an operator token needs 32 random bytes)", () => {
  it.each([
    ["openssl rand -hex 32 (64 hex characters)", () => randomBytes(32).toString("hex")],
    ["32 bytes as base64url (43 characters)", () => randomBytes(32).toString("base64url")],
    ["32 bytes as base64 (44 characters)", () => randomBytes(32).toString("base64")],
    ["a long random printable string", () => randomBytes(48).toString("base64").replace(/[+/=]/g, "!")],
  ])("accepts %s", (_what, make) => {
    for (let i = 0; i < 50; i++) expect(weaknessOf(make())).toBeUndefined();
  });

  it.each([
    ["a", /1 characters long/],
    ["test-admin-token-0123456789", /27 characters long/],
    ["24 random bytes in hex", /48 characters long/],
    ["63 hex characters", /63 characters long/],
    ["42 base64url characters", /42 characters long/],
    ["a".repeat(64), /repeats/],
    ["0123456789abcdef".repeat(4), /repeats/],
    ["abab".repeat(20), /repeats/],
    ["ab12".repeat(16), /repeats/],
    ["a long passphrase with spaces in it, long enough", /spaces or characters outside/],
    ["é".repeat(70), /outside printable ASCII/],
  ])("refuses %s", (token, reason) => {
    const value =
      token === "24 random bytes in hex"
        ? randomBytes(24).toString("hex")
        : token === "63 hex characters"
          ? randomBytes(32).toString("hex").slice(1)
          : token === "42 base64url characters"
            ? randomBytes(32).toString("base64url").slice(1)
            : token;
    expect(weaknessOf(value)).toMatch(reason);
  });

  it("never quotes the token in its reason", () => {
    const token = "canary-weak-token-7f3a";
    expect(weaknessOf(token)).not.toContain(token);
  });
});
