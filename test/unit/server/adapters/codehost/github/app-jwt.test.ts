// The App JWT's claims and signature (docs "Generating a JSON Web Token (JWT) for a GitHub App"). Pure: the
// signature is checked with the public half of a key pair made here, and by the fake code host's own check.
import { generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { appJwtClaims, signAppJwt } from "../../../../../../src/server/adapters/codehost/github/app-jwt.js";
import { refuseAppJwt } from "../../../../../helpers/fake-codehost/auth.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
const NOW = new Date("2026-11-26T12:00:00.500Z");
const NOW_S = Math.floor(NOW.getTime() / 1000);

describe("the App JWT", () => {
  it.each([
    ["iss is the App's id", "iss", "12345"],
    ["iat is a minute in the past (against clock drift)", "iat", NOW_S - 60],
    ["exp is nine minutes ahead (GitHub refuses more than ten)", "exp", NOW_S + 540],
  ])("%s", (_rule, claim, value) => {
    expect(appJwtClaims("12345", NOW)[claim as "iss"]).toBe(value);
  });

  it("is signed RS256: header alg RS256 and a signature the public key verifies", () => {
    const jwt = signAppJwt({ appId: "12345", privateKeyPem, now: NOW });
    const [head, body, signature] = jwt.split(".") as [string, string, string];
    expect(JSON.parse(Buffer.from(head, "base64url").toString())).toEqual({ alg: "RS256", typ: "JWT" });
    expect(JSON.parse(Buffer.from(body, "base64url").toString())).toEqual(appJwtClaims("12345", NOW));
    expect(
      verify("RSA-SHA256", Buffer.from(`${head}.${body}`), publicKeyPem, Buffer.from(signature, "base64url")),
    ).toBe(true);
  });

  it.each([
    ["a fresh JWT of this App is taken", "12345", NOW.getTime(), null],
    ["another App's id is refused", "999", NOW.getTime(), /iss/],
    ["after exp it is refused", "12345", NOW.getTime() + 541_000, /exp/],
    ["before iat it is refused (issued in the future)", "12345", NOW.getTime() - 120_000, /iat/],
  ])("the fake code host's check: %s", (_rule, appId, checkAtMs, refusal) => {
    const jwt = signAppJwt({ appId: "12345", privateKeyPem, now: NOW });
    const answer = refuseAppJwt(jwt, publicKeyPem, appId, checkAtMs);
    if (refusal === null) expect(answer).toBeNull();
    else expect(answer).toMatch(refusal);
  });

  it("the fake refuses a JWT signed with another key", () => {
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const jwt = signAppJwt({ appId: "12345", privateKeyPem: other, now: NOW });
    expect(refuseAppJwt(jwt, publicKeyPem, "12345", NOW.getTime())).toMatch(/signature/);
  });
});
