// Issue 35 B.11 and B.12 proved with clients nobody here wrote: the official MCP TypeScript SDK 1.x (npm alias
// mcp-sdk-v1) signs in through its own OAuth machinery (RFC 9728 discovery from the 401, dynamic registration with
// the scope the resource metadata advertises, authorization code + PKCE, refresh), and oauth4webapi, a strict
// standards OAuth client, runs discovery, registration, the code grant and the refresh grant with all its own
// validation. Only the person is simulated: a cookie-keeping fetch approves on the approval page as a signed-in
// browser would (the pages themselves are tested in Chromium under test/browser).

import { refreshAuthorization, UnauthorizedError } from "mcp-sdk-v1/client/auth.js";
import { Client } from "mcp-sdk-v1/client/index.js";
import { StreamableHTTPClientTransport } from "mcp-sdk-v1/client/streamableHttp.js";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPersonalToken } from "../../../src/server/domain/auth/personal-tokens-store.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { type OAuthWorld, OWNER, startOAuthWorld } from "./harness.js";
import { InMemoryProvider } from "./mcp-sdk-v1-provider.js";

/** A loopback redirect nobody listens on: the browser below stops at the redirect and hands its URL back. */
const REDIRECT_URI = "http://127.0.0.1:8976/callback";

/** Follows an authorization URL as a browser signed in as `email` would: keeps cookies, approves on the approval
 * page, and returns the redirect to the client (`?code=…&state=…&iss=…`) without fetching it. */
async function approveAsBrowser(world: OAuthWorld, start: string, email: string): Promise<URL> {
  const jar = new Map<string, string>();
  const session = await world.sessionFor(email);
  const cookie = () => [session, ...[...jar].map(([k, v]) => `${k}=${v}`)].join("; ");
  let next = start;
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 10; hop++) {
    const answer = await world.browse(next, { cookie: cookie(), ...(form ? { form } : {}) });
    for (const set of answer.headers.getSetCookie()) {
      const [k, ...v] = set.split(";")[0]!.split("=");
      jar.set(k!, v.join("="));
    }
    const location = answer.headers.get("location");
    if (location) {
      const to = new URL(location, next);
      if (to.origin !== new URL(world.url).origin) return to;
      next = to.toString();
      form = undefined;
      continue;
    }
    const page = await answer.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!csrf) throw new Error(`no approval form at ${next} (${answer.status}): ${page.slice(0, 300)}`);
    form = { csrf, decision: "approve" };
  }
  throw new Error("too many redirects");
}

describe("third-party OAuth clients against the authorization server and the MCP endpoint", () => {
  let world: OAuthWorld;
  /** The signed-in person's user id, as whoami names it. */
  let owner: string;
  beforeAll(async () => {
    world = await startOAuthWorld();
    owner = (await findUserByEmail(world.db, OWNER))!.id;
  });
  afterAll(async () => {
    await world?.close();
  });

  it("the MCP TypeScript SDK 1.x discovers, registers with scope baton, signs in with PKCE, calls whoami, refreshes, and a reused refresh token is refused", async () => {
    const endpoint = new URL(`${world.url}/v1/mcp`);
    const provider = new InMemoryProvider(REDIRECT_URI, async (url) => {
      const back = await approveAsBrowser(world, url.toString(), OWNER);
      return back.searchParams.get("code") ?? "";
    });
    // Every request the SDK makes (MCP and OAuth alike go through the transport's fetch), to show what it did.
    const seen: { method: string; path: string; status: number; body?: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const answer = await fetch(input, init);
      seen.push({
        method: init?.method ?? "GET",
        path: new URL(String(input instanceof Request ? input.url : input)).pathname,
        status: answer.status,
        // Registration sends a JSON string, token requests URLSearchParams.
        ...(typeof init?.body === "string" || init?.body instanceof URLSearchParams
          ? { body: String(init.body) }
          : {}),
      });
      return answer;
    };
    const connect = async () => {
      const client = new Client({ name: "third-party-test", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(endpoint, { authProvider: provider, fetch: recording }),
      );
      return client;
    };
    const whoami = async (client: Client) => {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
      return (result.structuredContent as { user: { id: string } }).user.id;
    };

    // First connect: 401, discovery, registration, the browser approves; the SDK then asks the app to finish.
    const firstTransport = new StreamableHTTPClientTransport(endpoint, {
      authProvider: provider,
      fetch: recording,
    });
    await expect(
      new Client({ name: "third-party-test", version: "1.0.0" }).connect(firstTransport),
    ).rejects.toThrow(UnauthorizedError);
    expect(seen[0]).toMatchObject({ method: "POST", path: "/v1/mcp", status: 401 });
    expect(seen).toContainEqual(
      expect.objectContaining({ path: "/.well-known/oauth-protected-resource/v1/mcp", status: 200 }),
    );
    const registration = seen.find((r) => r.path === "/oauth/register");
    expect(registration?.status).toBe(201);
    // The scope comes from the resource metadata's scopes_supported (this was refused with invalid_client_metadata).
    expect(JSON.parse(registration!.body!).scope).toBe("baton");
    expect(provider.authorizations).toHaveLength(1);
    const asked = provider.authorizations[0]!.searchParams;
    expect(asked.get("code_challenge_method")).toBe("S256");
    expect(asked.get("resource")).toBe(endpoint.href);
    expect(asked.get("scope")).toBe("baton");
    expect(provider.code).not.toBe("");
    await firstTransport.finishAuth(provider.code);
    const first = provider.saved!;
    expect(first.access_token).toEqual(expect.any(String));
    expect(first.refresh_token).toEqual(expect.any(String));

    const client = await connect();
    expect(await whoami(client)).toBe(owner);

    // The access token goes bad mid-session (as if expired): the next call gets 401 and the SDK refreshes on its
    // own, without sending the person back to the browser.
    provider.saved = { ...first, access_token: "no-longer-valid" };
    const refreshesBefore = seen.filter((r) => r.path === "/oauth/token").length;
    expect(await whoami(client)).toBe(owner);
    const tokenRequests = seen.filter((r) => r.path === "/oauth/token");
    expect(tokenRequests).toHaveLength(refreshesBefore + 1);
    expect(new URLSearchParams(tokenRequests.at(-1)!.body).get("grant_type")).toBe("refresh_token");
    expect(seen.at(-1)).toMatchObject({ path: "/v1/mcp", status: 200 });
    const second = provider.saved!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(provider.authorizations).toHaveLength(1);

    // The same plain request with the rotated access token is answered before the reuse, and refused after it.
    const listTools = (token: string) =>
      fetch(endpoint, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }).then((answer) => answer.status);
    expect(await listTools(second.access_token)).toBe(200);

    // The first refresh token, presented again with the SDK's own refresh helper, is refused (rotation), and the
    // reuse ends the whole sign-in (RFC 9700 section 4.14.2): the rotated tokens stop working too.
    await expect(
      refreshAuthorization(world.url, {
        metadata: provider.discovery?.authorizationServerMetadata,
        clientInformation: provider.client!,
        refreshToken: first.refresh_token!,
        resource: endpoint,
      }),
    ).rejects.toMatchObject({ errorCode: "invalid_grant" });
    expect(await listTools(second.access_token)).toBe(401);
    await expect(
      refreshAuthorization(world.url, {
        metadata: provider.discovery?.authorizationServerMetadata,
        clientInformation: provider.client!,
        refreshToken: second.refresh_token!,
        resource: endpoint,
      }),
    ).rejects.toMatchObject({ errorCode: "invalid_grant" });
    await client.close();
  });

  it("the MCP TypeScript SDK 1.x with a personal token in its Authorization header: connects, lists the tools, calls whoami", async () => {
    const { token } = await createPersonalToken(
      world.db,
      { email: OWNER, name: "mcp-sdk-v1 bearer", lifetimeDays: 30 },
      new Date(),
    );
    const client = new Client({ name: "third-party-bearer", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${world.url}/v1/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ["follow_up", "get_messages", "get_task", "list_tasks", "start_task", "stop_task", "whoami"].sort(),
      );
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { user: { id: string } }).user.id).toBe(owner);
    } finally {
      await client.close();
    }
  });

  it("oauth4webapi discovers the RFC 8414 metadata, registers, signs in with PKCE, refreshes and revokes, its own validation passing", async () => {
    // The service runs over plain http on loopback here; oauth4webapi refuses non-https endpoints unless told
    // otherwise, so every request allows insecure requests (tests only; production is https).
    const insecure = { [oauth.allowInsecureRequests]: true } as const;
    const issuer = new URL(world.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }),
    );
    expect(as.code_challenge_methods_supported).toContain("S256");
    expect(as.authorization_response_iss_parameter_supported).toBe(true);

    // The MCP endpoint's RFC 9728 metadata names this authorization server and the resource to ask for.
    const mcp = new URL(`${world.url}/v1/mcp`);
    const resource = await oauth.processResourceDiscoveryResponse(
      mcp,
      await oauth.resourceDiscoveryRequest(mcp, insecure),
    );
    expect(resource.authorization_servers).toEqual([as.issuer]);

    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        {
          client_name: "oauth4webapi test client",
          application_type: "native",
          redirect_uris: [REDIRECT_URI],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
          scope: resource.scopes_supported!.join(" "),
        },
        insecure,
      ),
    );
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.None();

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const start = new URL(as.authorization_endpoint!);
    start.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      scope: "baton",
      resource: resource.resource,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    const back = await approveAsBrowser(world, start.toString(), OWNER);
    // Checks state and the RFC 9207 iss parameter against the discovered issuer.
    const params = oauth.validateAuthResponse(as, client, back, state);

    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, {
        additionalParameters: { resource: resource.resource },
        ...insecure,
      }),
    );
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("baton");
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const callWhoami = (accessToken: string) =>
      oauth.protectedResourceRequest(
        accessToken,
        "POST",
        mcp,
        new Headers({
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-11-25",
        }),
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "whoami", arguments: {} },
        }),
        insecure,
      );
    const whoamiUser = async (answer: Response) =>
      ((await answer.json()) as { result: { structuredContent: { user: { id: string } } } }).result
        .structuredContent.user.id;
    const first = await callWhoami(tokens.access_token);
    expect(first.status).toBe(200);
    expect(await whoamiUser(first)).toBe(owner);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, {
        additionalParameters: { resource: resource.resource },
        ...insecure,
      }),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    const again = await callWhoami(refreshed.access_token);
    expect(again.status).toBe(200);
    expect(await whoamiUser(again)).toBe(owner);

    // Revocation (RFC 7009) through the library, from the endpoint the metadata names: the revoked access token
    // is refused at once, and a revoked refresh token can no longer be used.
    expect(as.revocation_endpoint).toEqual(expect.any(String));
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.access_token, insecure),
    );
    // oauth4webapi turns the 401's Bearer challenge into an error that carries it.
    await expect(callWhoami(refreshed.access_token)).rejects.toBeInstanceOf(
      oauth.WWWAuthenticateChallengeError,
    );
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, insecure),
    );
    const afterRevocation = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, refreshed.refresh_token!, insecure),
    );
    await expect(afterRevocation).rejects.toMatchObject({ error: "invalid_grant" });

    // The used refresh token is refused; oauth4webapi reports the server's OAuth error.
    const reuse = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, insecure),
    );
    await expect(reuse).rejects.toMatchObject({ error: "invalid_grant" });
  });
});
