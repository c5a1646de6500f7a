import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { disconnectApp, listConnectedApps } from "../../../src/server/surfaces/oauth/connected-apps.js";
import { PAGE_HEADERS } from "../../../src/server/surfaces/pages/headers.js";
import { type OAuthWorld, OWNER, STRANGER, startOAuthWorld } from "./harness.js";

const HOUR = 3_600_000;
const DAY = 86_400_000;

describe("the authorization server", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  const me = (token: string) =>
    fetch(`${world.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { error?: string; reason?: string },
    }));
  const register = (body: Record<string, unknown>) =>
    fetch(`${world.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const NATIVE = {
    client_name: "test",
    application_type: "native",
    token_endpoint_auth_method: "none",
    redirect_uris: ["http://127.0.0.1/callback"],
  };

  it("publishes RFC 8414 metadata: code flow only, PKCE S256 only, iss in responses, client ID documents, no PAR", async () => {
    const meta = (await (
      await fetch(`${world.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: world.url,
      authorization_endpoint: `${world.url}/oauth/authorize`,
      token_endpoint: `${world.url}/oauth/token`,
      registration_endpoint: `${world.url}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ["code"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
      client_id_metadata_document_supported: true,
    });
    expect(meta.pushed_authorization_request_endpoint).toBeUndefined();
    expect(meta.userinfo_endpoint).toBeUndefined();
  });

  it("publishes RFC 9728 protected resource metadata for the API at <url>/v1", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/v1",
    ]) {
      const body = await (await fetch(`${world.url}${path}`)).json();
      expect(body).toMatchObject({ resource: `${world.url}/v1`, authorization_servers: [world.url] });
    }
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["a non-loopback http redirect", { redirect_uris: ["http://example.test/callback"] }, /loopback/],
    ["an https redirect", { redirect_uris: ["https://example.test/callback"] }, /loopback/],
    ["a web application at a loopback redirect", { application_type: "web" }, /https/],
    ["an unknown application type", { application_type: "desktop" }, /native.*web/],
    ...[
      "https://127.0.0.2/cb",
      "https://[::ffff:127.0.0.1]/cb",
      "https://169.254.169.254/cb",
      "https://0.0.0.0/cb",
      "https://2130706433/cb",
      "https://0x7f000001/cb",
    ].map((uri): [string, Record<string, unknown>, RegExp] => [
      `a web application at ${uri} (not a public host)`,
      { application_type: "web", redirect_uris: [uri] },
      /public host/,
    ]),
    [
      "a confidential client",
      { token_endpoint_auth_method: "client_secret_basic" },
      /none|token_endpoint_auth_method/,
    ],
  ])(
    "refuses to register %s (native public clients at loopback http, web clients at https)",
    async (_what, change, why) => {
      const answer = await register({ ...NATIVE, ...change });
      expect(answer.status).toBe(400);
      const body = (await answer.json()) as { error: string; error_description: string };
      // oidc-provider's own RFC 8252 rules refuse some redirects before ours run, with their own code.
      expect(body.error).toMatch(/^invalid_(client_metadata|redirect_uri)$/);
      expect(body.error_description).toMatch(why);
    },
  );

  it("registers a native client with http://127.0.0.1/callback and gives it no secret", async () => {
    const answer = await register(NATIVE);
    expect(answer.status).toBe(201);
    const body = (await answer.json()) as Record<string, unknown>;
    expect(body.client_id).toEqual(expect.any(String));
    expect(body.client_secret).toBeUndefined();
  });

  it.each([
    ["without a code_challenge", {}],
    ["with the plain method", { code_challenge: "a".repeat(43), code_challenge_method: "plain" }],
  ])("requires PKCE S256: an authorization request %s is refused", async (_what, pkce) => {
    const client = (await (await register(NATIVE)).json()) as { client_id: string };
    const params = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:5555/callback",
      scope: "baton",
      state: "s",
      ...pkce,
    });
    const answer = await world.browse(`${world.url}/oauth/authorize?${params}`);
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!);
    expect(location.origin).toBe("http://127.0.0.1:5555");
    expect(location.searchParams.get("error")).toBe("invalid_request");
  });

  it("refuses the openid scope: the service issues OAuth access tokens only", async () => {
    const answer = await world.browse(`${world.url}/oauth/authorize?scope=openid&client_id=x`);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("without openid");
  });

  it("a browser sign-in's token acts as the user on /v1, and is listed under Connected apps", async () => {
    const token = await world.signIn();
    const answer = await me(token);
    expect(answer.status).toBe(200);
    const user = (await findUserByEmail(world.db, OWNER))!;
    const apps = await listConnectedApps(world.app.deps, user.id);
    expect(apps[0]!.clientName).toMatch(/^Baton CLI on /);
    expect(Date.parse(apps[0]!.expiresAt) - Date.parse(apps[0]!.createdAt)).toBeLessThanOrEqual(90 * DAY);
  });

  it("Disconnect ends the sign-in at once; another user cannot disconnect it", async () => {
    const token = await world.signIn();
    const owner = (await findUserByEmail(world.db, OWNER))!;
    const stranger = (await findUserByEmail(world.db, STRANGER))!;
    const grantId = (await listConnectedApps(world.app.deps, owner.id))[0]!.grantId;
    expect(await disconnectApp(world.app.deps, stranger.id, grantId)).toBe(false);
    expect((await me(token)).status).toBe(200);
    expect(await disconnectApp(world.app.deps, owner.id, grantId)).toBe(true);
    const after = await me(token);
    expect(after).toMatchObject({ status: 401, body: { error: "invalid_token" } });
    expect(after.body.reason).toContain("baton login");
    expect((await listConnectedApps(world.app.deps, owner.id)).map((a) => a.grantId)).not.toContain(grantId);
  });

  it.each([
    ["used every 29 days, on day 89", [29, 58, 87, 89], 200, ""],
    ["past 90 days although used", [29, 58, 87, 90.01], 401, "90 days"],
    ["unused for 30 days", [30.01], 401, "30 days"],
  ])(
    "a sign-in lasts up to 90 days, or until 30 days pass without use: %s",
    async (_what, days, status, reason) => {
      world.clock.offsetMs = 0;
      // Each use is the client's: its hour-long access token is renewed first, as `baton` does (issue 35 B.12).
      let { accessToken, refreshToken, clientId } = await world.signInTokens();
      let last = await me(accessToken);
      for (const day of days) {
        world.clock.offsetMs = day * DAY;
        const renewed = await world.refresh(clientId, refreshToken);
        if (renewed.status === 200) {
          accessToken = renewed.body.access_token!;
          refreshToken = renewed.body.refresh_token!;
        } else expect(renewed.body.error).toBe("invalid_grant");
        last = await me(accessToken);
      }
      world.clock.offsetMs = 0;
      expect(last.status).toBe(status);
      if (reason) expect(last.body.reason).toContain(reason);
    },
  );

  it("an access token lasts an hour; the refresh token renews it, and the sign-in goes on", async () => {
    world.clock.offsetMs = 0;
    const { accessToken, refreshToken, clientId } = await world.signInTokens();
    world.clock.offsetMs = HOUR - 1000;
    expect((await me(accessToken)).status).toBe(200);
    world.clock.offsetMs = HOUR;
    const lapsed = await me(accessToken);
    expect(lapsed.status).toBe(401);
    expect(lapsed.body.reason).toContain("they last an hour");
    const renewed = await world.refresh(clientId, refreshToken);
    expect(renewed.status).toBe(200);
    expect(Number(renewed.body.expires_in)).toBeLessThanOrEqual(3600);
    expect((await me(renewed.body.access_token!)).status).toBe(200);
    world.clock.offsetMs = 0;
  });

  it("a token bound to another resource (RFC 8707: <url>/v1/mcp) is refused by the API; an unknown resource is invalid_target", async () => {
    const mcp = await world.signInFor(`${world.url}/v1/mcp`);
    expect(mcp.status).toBe(200);
    expect((await me(String(mcp.body.access_token))).status).toBe(401);
    const api = await world.signInFor(`${world.url}/v1`);
    expect((await me(String(api.body.access_token))).status).toBe(200);
    const elsewhere = await world.browse(
      `${world.url}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: ((await (await register(NATIVE)).json()) as { client_id: string }).client_id,
        redirect_uri: "http://127.0.0.1:5555/callback",
        resource: "https://elsewhere.test/api",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        state: "s",
      })}`,
    );
    expect(new URL(elsewhere.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  it("the approval page, the answer to its form and its redirect to sign-in carry every page's headers (docs/operators.md: CSP, no-store, no-referrer, nosniff)", async () => {
    const signIn = await world.signInFor(`${world.url}/v1`);
    expect(signIn.status).toBe(200);
    const unsigned = await world.browse(`${world.url}/oauth/interaction/abc`);
    expect(unsigned.status).toBe(303);
    for (const headers of [signIn.approvalHeaders, signIn.decisionHeaders, unsigned.headers]) {
      for (const [name, value] of Object.entries(PAGE_HEADERS)) {
        if (name !== "content-security-policy") expect(headers.get(name), name).toBe(value);
      }
      const csp = headers.get("content-security-policy") ?? "";
      for (const directive of [
        "default-src 'none'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "style-src",
      ])
        expect(csp).toContain(directive);
      expect(csp).not.toMatch(/script-src|unsafe-inline/);
    }
    // The form's answer redirects through the provider to the app's loopback address: that origin alone is added.
    expect(signIn.approvalHeaders.get("content-security-policy")).toMatch(
      /form-action 'self' http:\/\/127\.0\.0\.1:\d+;/,
    );
  });

  it("the session cookie never authenticates the API", async () => {
    const answer = await fetch(`${world.url}/v1/me`, { headers: { cookie: await world.sessionFor(OWNER) } });
    expect(answer.status).toBe(401);
  });

  it("stores no raw access token, session id or client secret: the store holds hashes only", async () => {
    const token = await world.signIn();
    const cookie = (await world.sessionFor(OWNER)).split("=")[1]!;
    const stored = await world.dump();
    expect(stored, "the dump holds the stored rows").toContain(OWNER);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(cookie);
    const logged = world.logs.join("\n");
    expect(logged.length).toBeGreaterThan(0);
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(cookie);
  });
});
