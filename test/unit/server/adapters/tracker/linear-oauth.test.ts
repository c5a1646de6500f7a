// The tracker's OAuth pieces that decide without I/O: PKCE (RFC 7636) and the authorization URL Linear documents
// (`<web>/oauth/authorize?client_id&redirect_uri&response_type=code&scope=read,write&state&code_challenge&
// code_challenge_method=S256`, plus `actor=app` when the workspace connects, so the app acts as itself).
import { describe, expect, it } from "vitest";
import {
  buildAuthorizationUrl,
  challengeOf,
  createPkceVerifier,
} from "../../../../../src/server/adapters/tracker/linear/index.js";

describe("PKCE", () => {
  it("a verifier is 43 characters of the unreserved set, and a new one each time", () => {
    const a = createPkceVerifier();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createPkceVerifier()).not.toBe(a);
  });

  it('the challenge is BASE64URL(SHA256(verifier)), checked against the published SHA-256 of "abc"', () => {
    const sha256OfAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    expect(challengeOf("abc")).toBe(Buffer.from(sha256OfAbc, "hex").toString("base64url"));
    expect(challengeOf("abc")).not.toMatch(/[+/=]/);
  });
});

const VERIFIER = "verifier-0123456789-0123456789-0123456789-abc";

describe("the authorization URL", () => {
  const settings = { clientId: "client-1", webUrl: "https://tracker.example.test" };
  const build = (purpose: "connect" | "link") =>
    new URL(
      buildAuthorizationUrl({
        settings,
        redirectUri: "https://baton.example.test/install/tracker/callback",
        state: "st&ate=1",
        verifier: VERIFIER,
        purpose,
      }),
    );

  it.each([
    ["client_id", "client-1"],
    ["redirect_uri", "https://baton.example.test/install/tracker/callback"],
    ["response_type", "code"],
    ["scope", "read,write"],
    ["state", "st&ate=1"],
    ["code_challenge", challengeOf(VERIFIER)],
    ["code_challenge_method", "S256"],
  ])("carries %s (encoded, read back as %s)", (name, value) => {
    for (const purpose of ["connect", "link"] as const)
      expect(build(purpose).searchParams.get(name)).toBe(value);
  });

  it("goes to <webUrl>/oauth/authorize", () => {
    expect(`${build("link").origin}${build("link").pathname}`).toBe(
      "https://tracker.example.test/oauth/authorize",
    );
  });

  it.each([
    ["connect", "app"],
    ["link", null],
  ] as const)("a %s asks actor=%s (only the workspace's connection acts as the app)", (purpose, actor) => {
    expect(build(purpose).searchParams.get("actor")).toBe(actor);
  });

  it("never carries the client secret or the verifier", () => {
    const url = build("connect").href;
    expect(url).not.toContain(VERIFIER);
    expect(url).not.toContain("secret");
  });
});
