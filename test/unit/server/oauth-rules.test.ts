// The pure rules of sign-in: where a sign-in may redirect, how the client reads its loopback callback, which
// clients may register (native loopback, web https), the session cookie's attributes, and a sign-in's lifetime.
import { describe, expect, it } from "vitest";
import { classifyCallback } from "../../../src/client/pkce.js";
import { classifySignIn } from "../../../src/server/domain/auth/sign-ins.js";
import { refuseClient } from "../../../src/server/surfaces/oauth/client-policy.js";
import { sessionCookie, sessionCookieSecure } from "../../../src/server/surfaces/pages/session.js";
import { safeNextPath } from "../../../src/server/surfaces/pages/sign-in-links.js";

const DAY = 86_400_000;

describe("safeNextPath: only same-origin relative paths", () => {
  it.each([
    ["/oauth/interaction/abc", "/oauth/interaction/abc"],
    ["/dashboard/tokens?x=1", "/dashboard/tokens?x=1"],
    ["//evil.test/x", "/dashboard/tokens"],
    ["/\\evil.test", "/dashboard/tokens"],
    ["https://evil.test/", "/dashboard/tokens"],
    ["javascript:alert(1)", "/dashboard/tokens"],
    ["", "/dashboard/tokens"],
    [undefined, "/dashboard/tokens"],
    ["/a\nb", "/dashboard/tokens"],
  ])("%j goes to %j", (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });
});

describe("classifyCallback: the client's loopback answer (RFC 9207 iss, state)", () => {
  const expected = { state: "st", issuer: "https://baton.test" };
  const at = (query: string, path = "/callback") =>
    classifyCallback(new URL(`http://127.0.0.1:1${path}?${query}`), expected);
  it.each([
    ["code=c&state=st&iss=https%3A%2F%2Fbaton.test", "code"],
    ["error=access_denied&state=st&iss=https%3A%2F%2Fbaton.test", "denied"],
    ["code=c&state=other&iss=https%3A%2F%2Fbaton.test", "ignore"],
    ["code=c&state=st&iss=https%3A%2F%2Fevil.test", "fail"],
    ["code=c&state=st", "fail"],
    ["error=server_error&state=st&iss=https%3A%2F%2Fbaton.test", "fail"],
  ])("%s is %s", (query, kind) => {
    expect(at(query).kind).toBe(kind);
  });
  it("another path is ignored", () => {
    expect(at("code=c&state=st", "/favicon.ico").kind).toBe("ignore");
  });
});

describe("refuseClient: native public clients at loopback http, web clients at public https", () => {
  const native = { application_type: "native", token_endpoint_auth_method: "none" };
  const web = { application_type: "web", token_endpoint_auth_method: "none" };
  it.each([
    ["native", native, ["http://127.0.0.1/callback"], undefined],
    ["native", native, ["http://[::1]:8080/cb"], undefined],
    ["native", native, ["http://localhost/cb"], undefined],
    ["native", native, ["http://example.test/cb"], /loopback/],
    ["native", native, ["https://127.0.0.1/cb"], /loopback/],
    ["native", native, ["com.example.app:/cb"], /loopback/],
    [
      "native",
      { ...native, token_endpoint_auth_method: "client_secret_basic" },
      ["http://127.0.0.1/cb"],
      /public/,
    ],
    ["web", web, ["https://chat.example.com/oauth/callback"], undefined],
    [
      "web",
      { ...web, token_endpoint_auth_method: "client_secret_basic" },
      ["https://a.example/cb"],
      undefined,
    ],
    [
      "web",
      { ...web, token_endpoint_auth_method: "client_secret_post" },
      ["https://a.example/cb"],
      undefined,
    ],
    [
      "web",
      { ...web, token_endpoint_auth_method: "private_key_jwt" },
      ["https://a.example/cb"],
      /client_secret_basic/,
    ],
    ["web", web, ["http://chat.example.com/cb"], /https/],
    ["web", web, ["https://127.0.0.1/cb"], /public host/],
    ["web", web, ["https://localhost/cb"], /public host/],
    ["web", web, [], /at least one redirect_uri/],
    [
      "other",
      { application_type: "desktop", token_endpoint_auth_method: "none" },
      ["http://127.0.0.1/cb"],
      /native.*web/,
    ],
  ])("%s %j at %j → %s", (_kind, metadata, uris, refusal) => {
    const answer = refuseClient({ ...metadata, redirect_uris: uris });
    if (refusal) expect(answer).toMatch(refusal);
    else expect(answer).toBeUndefined();
  });
});

describe("refuseClient: a web client's https redirect host must be public in every spelling (issue 35 A.10)", () => {
  const web = { application_type: "web", token_endpoint_auth_method: "none" };
  it.each([
    "https://127.0.0.2/cb",
    "https://127.255.255.254/cb",
    "https://[::ffff:127.0.0.1]/cb",
    "https://[::ffff:7f00:1]/cb",
    "https://[::1]/cb",
    "https://[::]/cb",
    "https://169.254.169.254/latest",
    "https://0.0.0.0/cb",
    "https://2130706433/cb",
    "https://0x7f000001/cb",
    "https://0x7f.1/cb",
    "https://0177.0.0.1/cb",
    "https://10.0.0.1/cb",
    "https://172.16.5.4/cb",
    "https://192.168.1.1/cb",
    "https://[fe80::1]/cb",
    "https://[fd00::1]/cb",
    "https://[fd00:ec2::254]/cb",
    "https://100.100.100.200/cb",
    "https://localhost/cb",
    "https://app.localhost/cb",
    "https://metadata.google.internal/cb",
  ])("%s is refused", (uri) => {
    expect(refuseClient({ ...web, redirect_uris: [uri] })).toMatch(/public host/);
  });
  it.each(["https://chat.example.com/cb", "https://93.184.215.14/cb", "https://[2606:4700::1111]/cb"])(
    "%s is accepted",
    (uri) => {
      expect(refuseClient({ ...web, redirect_uris: [uri] })).toBeUndefined();
    },
  );
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, and Secure when asked", () => {
    expect(sessionCookie("id", false, 60)).toBe(
      "baton_session=id; Path=/; HttpOnly; SameSite=Lax; Max-Age=60",
    );
    expect(sessionCookie("id", true, 60)).toContain("; Secure");
  });
  it.each([
    ["https://baton.example.com", true],
    ["https://127.0.0.1:8443", true],
    ["http://127.0.0.1:8080", false],
    ["http://10.0.0.5", false],
    [undefined, false],
  ])("is Secure for the public URL %s: %s (the URL, never the Host header)", (serviceUrl, secure) => {
    expect(sessionCookieSecure(serviceUrl === undefined ? undefined : { serviceUrl })).toBe(secure);
  });
});

const HOUR = 3_600_000;

describe("classifySignIn: up to 90 days, or until 30 days pass without use", () => {
  const row = { expiresAtMs: 90 * DAY, lastUsedAtMs: 0, endedAtMs: null, tokenExpiresAtMs: 90 * DAY };
  it.each([
    [{}, 29 * DAY, "active"],
    [{}, 30 * DAY, "idle"],
    [{ lastUsedAtMs: 80 * DAY }, 90 * DAY, "expired"],
    [{ lastUsedAtMs: 80 * DAY }, 89 * DAY, "active"],
    [{ endedAtMs: 1 }, 1, "ended"],
    // Issue 35 B.12: an hour-long access token runs out long before its sign-in; the two are told apart.
    [{ tokenExpiresAtMs: HOUR }, HOUR, "token_expired"],
    [{ tokenExpiresAtMs: HOUR }, HOUR - 1, "active"],
    [{ tokenExpiresAtMs: HOUR }, 30 * DAY, "idle"],
  ])("%j at %d ms is %s", (change, now, state) => {
    expect(classifySignIn({ ...row, ...change }, now)).toBe(state);
  });
});
