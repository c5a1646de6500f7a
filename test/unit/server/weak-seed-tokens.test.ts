// Issue 37 A2: which seed member tokens are too weak (the rule of created ones: 32 random bytes after btn_), and
// that the refusal applies only off loopback, naming the member and never the token.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type SeedDocument, SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import { weakSeedTokenRefusal, weakSeedTokens } from "../../../src/server/domain/seed/weak-tokens.js";

const strong = `btn_${randomBytes(32).toString("base64url")}`;
const seedWith = (tokens: (string | undefined)[]): SeedDocument =>
  SeedDocumentSchema.parse({
    workspaces: [
      {
        id: "ws_a",
        name: "A",
        members: tokens.map((token, i) => ({
          email: `m${i}@a.test`,
          role: "member",
          ...(token ? { token } : {}),
        })),
      },
    ],
  });

describe("weakSeedTokens", () => {
  it.each([
    ["a created-shape token (43 random base64url characters)", strong, 0],
    ["a fixture token with a run of zeros", "btn_owner-acme-0000000000000000", 1],
    ["16 characters, the seed schema's minimum", "btn_abcdefghijklmnop", 1],
    ["no token", undefined, 0],
  ])("%s", (_what, token, weak) => {
    expect(weakSeedTokens(seedWith([token]))).toHaveLength(weak);
  });
});

describe("weakSeedTokenRefusal", () => {
  const weak = weakSeedTokens(
    seedWith(["btn_owner-acme-0000000000000000", strong, "btn_dev-acme-00000000000000000000"]),
  );
  it("loopback only: no refusal", () => {
    expect(weakSeedTokenRefusal("seed.json", weak, [])).toBeUndefined();
  });
  it("no weak token: no refusal off loopback", () => {
    expect(weakSeedTokenRefusal("seed.json", [], ["--host 0.0.0.0"])).toBeUndefined();
  });
  it("off loopback: names each weak token's member, the exposed listener and the fix, never the token", () => {
    const refusal = weakSeedTokenRefusal("seed.json", weak, ["--host 0.0.0.0"]) ?? "";
    expect(refusal).toContain("the token of m0@a.test in ws_a is too weak");
    expect(refusal).toContain("(and 1 more: m2@a.test in ws_a)");
    expect(refusal).toContain("--host 0.0.0.0");
    expect(refusal).toContain("openssl rand -base64 32");
    expect(refusal).not.toContain("0000000000");
    expect(refusal).not.toContain("m1@a.test");
  });
});
