// The tracker install flow's decisions: connect (owner or admin, actor=app) while the workspace holds no tracker
// token, link one's own identity once it does, and the purpose carried inside the PKCE verifier, which stays a
// valid RFC 7636 verifier (43 to 128 unreserved characters).
import { describe, expect, it } from "vitest";
import { createPkceVerifier } from "../../../../../src/server/adapters/tracker/linear/index.js";
import {
  choosePurpose,
  purposeOf,
  roleNeeded,
  verifierFor,
} from "../../../../../src/server/surfaces/pages/install/tracker-flow.js";

describe("choosePurpose and roleNeeded", () => {
  it.each([
    [false, "connect", "admin"],
    [true, "link", "member"],
  ] as const)("connected: %s → %s, needing a %s", (connected, purpose, role) => {
    expect(choosePurpose({ connected })).toBe(purpose);
    expect(roleNeeded(purpose)).toBe(role);
  });
});

describe("the purpose in the verifier", () => {
  it.each(["connect", "link"] as const)("%s round-trips and stays a valid verifier", (purpose) => {
    const verifier = verifierFor(purpose, createPkceVerifier());
    expect(purposeOf(verifier)).toBe(purpose);
    expect(verifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
  });

  it.each([["plain-random"], ["connectx-abc"], [""], ["nodash"], ["linkX"], ["connect"]])(
    "%s carries no purpose",
    (verifier) => {
      expect(purposeOf(verifier)).toBeUndefined();
    },
  );
});
