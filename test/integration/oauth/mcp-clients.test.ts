import { getCACertificates, setDefaultCACertificates } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lookUpSignInToken } from "../../../src/server/domain/auth/sign-ins.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { listConnectedApps } from "../../../src/server/surfaces/oauth/connected-apps.js";
import { fetchAllowingLoopback } from "../../../src/server/surfaces/oauth/loopback-fetch.js";
import { type ClientDocumentServer, serveClientDocument } from "../../helpers/client-document.js";
import { type OAuthWorld, OWNER, startOAuthWorld } from "./harness.js";

const NATIVE_DOCUMENT = {
  client_name: "Docs MCP client",
  application_type: "native",
  token_endpoint_auth_method: "none",
  redirect_uris: ["http://127.0.0.1/callback"],
};

describe("MCP clients on the authorization server", () => {
  let world: OAuthWorld;
  let guarded: OAuthWorld;
  let native: ClientDocumentServer;
  let webAtLoopback: ClientDocumentServer;
  beforeAll(async () => {
    native = await serveClientDocument(() => NATIVE_DOCUMENT);
    webAtLoopback = await serveClientDocument(() => ({
      ...NATIVE_DOCUMENT,
      application_type: "web",
    }));
    // The test CAs join this worker's default trust store: the service's fetch of the documents is real TLS.
    setDefaultCACertificates([...getCACertificates("default"), native.caPem, webAtLoopback.caPem]);
    [world, guarded] = await Promise.all([
      startOAuthWorld({
        oauthFetch: fetchAllowingLoopback(
          [native.clientId, webAtLoopback.clientId].map((id) => Number(new URL(id).port)),
        ),
      }),
      startOAuthWorld(),
    ]);
  });
  afterAll(async () => {
    await Promise.all([world?.close(), guarded?.close(), native?.close(), webAtLoopback?.close()]);
  });

  const register = (body: Record<string, unknown>) =>
    fetch(`${world.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const authorize = (target: OAuthWorld, clientId: string) =>
    target.browse(
      `${target.url}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "http://127.0.0.1:5555/callback",
        resource: `${target.url}/v1/mcp`,
        scope: "baton",
        code_challenge: "a".repeat(43),
        code_challenge_method: "S256",
        state: "s",
      })}`,
    );

  it("publishes RFC 9728 metadata for the MCP endpoint at /.well-known/oauth-protected-resource/v1/mcp", async () => {
    const answer = await fetch(`${world.url}/.well-known/oauth-protected-resource/v1/mcp`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({
      resource: `${world.url}/v1/mcp`,
      authorization_servers: [world.url],
      scopes_supported: ["baton"],
      bearer_methods_supported: ["header"],
      resource_name: "Baton MCP endpoint",
    });
  });

  it("registers a web-hosted public client at an https redirect, without a secret", async () => {
    const answer = await register({
      client_name: "Chat connector",
      application_type: "web",
      token_endpoint_auth_method: "none",
      redirect_uris: ["https://chat.example.com/oauth/callback"],
    });
    expect(answer.status).toBe(201);
    expect(((await answer.json()) as Record<string, unknown>).client_secret).toBeUndefined();
  });

  it("registers a confidential web client: its secret authenticates at the token endpoint and is sealed at rest", async () => {
    const answer = await register({
      client_name: "Hosted agent",
      application_type: "web",
      token_endpoint_auth_method: "client_secret_basic",
      redirect_uris: ["https://agent.example.com/cb"],
    });
    expect(answer.status).toBe(201);
    const client = (await answer.json()) as { client_id: string; client_secret: string };
    expect(client.client_secret).toEqual(expect.any(String));
    const exchange = (secret: string) =>
      fetch(`${world.url}/oauth/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString("base64")}`,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "not-a-code",
          redirect_uri: "https://agent.example.com/cb",
          code_verifier: "v".repeat(43),
        }),
      }).then(async (r) => ((await r.json()) as { error: string }).error);
    // The right secret gets past client authentication to the (bogus) code; a wrong one does not.
    expect(await exchange(client.client_secret)).toBe("invalid_grant");
    expect(await exchange("wrong")).toBe("invalid_client");
    expect(await world.dump()).not.toContain(client.client_secret);
  });

  it("signs in a client by its Client ID Metadata Document for <url>/v1/mcp: the approval page names it and says what it may do over MCP", async () => {
    const signIn = await world.signInFor(`${world.url}/v1/mcp`, OWNER, native.clientId);
    expect(signIn.status).toBe(200);
    expect(signIn.approvalPage).toContain("Docs MCP client");
    expect(signIn.approvalPage).toContain("connect to Baton over MCP");
    expect(signIn.approvalPage).toContain("use Baton&#39;s MCP tools as you in every workspace");
    expect(native.fetches).toBeGreaterThan(0);
    const token = String(signIn.body.access_token);
    const nowMs = Date.now();
    expect((await lookUpSignInToken(world.db, token, "mcp", nowMs)).state).toBe("active");
    // Bound to the MCP endpoint (RFC 8707): the public API does not take it.
    expect((await lookUpSignInToken(world.db, token, "api", nowMs)).state).toBe("unknown");
    const me = await fetch(`${world.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(me.status).toBe(401);
    const apps = await listConnectedApps(world.app.deps, (await findUserByEmail(world.db, OWNER))!.id);
    expect(apps.map((app) => app.clientName)).toContain("Docs MCP client");
  });

  const DAY = 86_400_000;
  const whoamiOverMcp = (token: string) =>
    fetch(`${world.url}/v1/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "whoami",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "whoami",
          arguments: {},
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    }).then((r) => r.status);

  it.each([
    ["used every 29 days, on day 89", [29, 58, 87, 89], 200],
    ["past 90 days although used", [29, 58, 87, 90.01], 401],
    ["unused for 30 days", [30.01], 401],
  ])(
    "an MCP client's sign-in lasts up to 90 days, or until 30 days pass without use, on /v1/mcp: %s",
    async (_what, days, status) => {
      world.clock.offsetMs = 0;
      const signIn = await world.signInFor(`${world.url}/v1/mcp`);
      let token = String(signIn.body.access_token);
      let refreshToken = String(signIn.body.refresh_token);
      let last = await whoamiOverMcp(token);
      expect(last).toBe(200);
      // The app renews its hour-long access token before each use, as MCP clients do (issue 35 B.12).
      for (const day of days) {
        world.clock.offsetMs = day * DAY;
        const renewed = await world.refresh(signIn.clientId, refreshToken);
        if (renewed.status === 200) {
          token = renewed.body.access_token!;
          refreshToken = renewed.body.refresh_token!;
        } else expect(renewed.body.error).toBe("invalid_grant");
        last = await whoamiOverMcp(token);
      }
      world.clock.offsetMs = 0;
      expect(last).toBe(status);
    },
  );

  it("refuses a client document that breaks the client policy (a web client at a loopback http redirect)", async () => {
    const answer = await authorize(world, webAtLoopback.clientId);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("https URLs on a public host");
  });

  it("without the test seam, a client document at a loopback address is refused (SSRF)", async () => {
    const answer = await authorize(guarded, native.clientId);
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain("invalid_client");
  });
});
