// OAuth sign-in for an MCP client, end to end: a real `baton serve`, headless Chromium for the person, and an MCP
// client driven by hand in the test exactly as the MCP authorization spec (2026-07-28) describes it: a POST to
// /v1/mcp without a token is 401 with the RFC 9728 pointer, the client reads the protected-resource metadata and
// the authorization server's RFC 8414 metadata, registers (dynamically, RFC 7591, or by a Client ID Metadata
// Document served over https on loopback with a test CA), sends the person to approve with PKCE S256 and
// `resource=<url>/v1/mcp`, checks RFC 9207 `iss`, exchanges the code and calls `whoami` over MCP. The service
// fetches the loopback document only because the test sets BATON_SERVE_TEST_LOOPBACK_CLIENT_DOCUMENTS to the
// document server's port (loopback addresses are refused otherwise, SSRF) and trusts the test CA through NODE_EXTRA_CA_CERTS.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenOnLoopback } from "../../src/client/loopback-callback.js";
import { buildAuthorizationUrl, makeSignInSecrets } from "../../src/client/pkce.js";
import { LOOPBACK_CLIENT_DOCUMENTS_ENV } from "../../src/server/surfaces/oauth/loopback-fetch.js";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { type ClientDocumentServer, serveClientDocument } from "../helpers/client-document.js";
import { pollUntil } from "../helpers/poll.js";
import { FIXTURES, LOUD, type ServeHandle, startServe } from "../helpers/serve.js";
import { signInByEmail } from "../helpers/sign-in-by-email.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.js";

const VERSION = "2026-07-28";

/** One modern-era tools/call to /v1/mcp with `token` as the bearer header. */
async function callTool(url: string, token: string | undefined, name: string) {
  const answer = await fetch(`${url}/v1/mcp`, {
    method: "POST",
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientInfo": { name: "test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return {
    status: answer.status,
    wwwAuthenticate: answer.headers.get("www-authenticate"),
    body: (await answer.json()) as { result?: { structuredContent?: { user?: { name: string } } } },
  };
}

describe("an MCP client signs in by OAuth and calls whoami (headless Chromium, real baton serve)", () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let serve: ServeHandle;
  let document: ClientDocumentServer;
  let dir: string;
  let page: Page;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "mcp-oauth-"));
    smtp = await startSmtpServer();
    document = await serveClientDocument(() => ({
      client_name: "Docs MCP client",
      application_type: "native",
      token_endpoint_auth_method: "none",
      redirect_uris: ["http://127.0.0.1/callback"],
    }));
    await writeFile(join(dir, "ca.pem"), document.caPem);
    [browser, serve] = await Promise.all([
      launchBrowser(),
      startServe({
        seed: `${FIXTURES}/seeds/api.json`,
        args: ["--smtp-url", smtp.url],
        env: {
          ...LOUD,
          [LOOPBACK_CLIENT_DOCUMENTS_ENV]: new URL(document.clientId).port,
          NODE_EXTRA_CA_CERTS: join(dir, "ca.pem"),
        },
      }),
    ]);
    const context = await newContext(browser);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  }, 90_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop(), smtp?.close(), document?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  /** What the client learns from the 401 and the two metadata documents. */
  async function discover() {
    const refused = await callTool(serve.url, undefined, "whoami");
    expect(refused.status).toBe(401);
    const pointer = /resource_metadata="([^"]+)"/.exec(refused.wwwAuthenticate ?? "")?.[1];
    expect(pointer).toBe(`${serve.url}/.well-known/oauth-protected-resource/v1/mcp`);
    const resource = (await (await fetch(pointer!)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    expect(resource.resource).toBe(`${serve.url}/v1/mcp`);
    const issuer = resource.authorization_servers[0]!;
    const meta = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
      issuer: string;
      authorization_endpoint: string;
      token_endpoint: string;
      registration_endpoint: string;
      code_challenge_methods_supported: string[];
      client_id_metadata_document_supported: boolean;
      authorization_response_iss_parameter_supported: boolean;
    };
    expect(meta.code_challenge_methods_supported).toEqual(["S256"]);
    expect(meta.client_id_metadata_document_supported).toBe(true);
    expect(meta.authorization_response_iss_parameter_supported).toBe(true);
    return { resource: resource.resource, meta };
  }

  /** The person approves in Chromium (signing in by e-mail the first time); returns the token answer. */
  async function signIn(clientId: string, resource: string, expectOnPage: RegExp[]) {
    const { meta } = await discover();
    const secrets = makeSignInSecrets(randomBytes(32), randomBytes(16));
    const got: { code?: string; iss?: string } = {};
    const listener = await listenOnLoopback((at) => {
      if (at.pathname !== "/callback") return "ignored";
      got.code = at.searchParams.get("code") ?? undefined;
      got.iss = at.searchParams.get("iss") ?? undefined;
      return "approved";
    });
    try {
      const start = buildAuthorizationUrl({
        authorizationEndpoint: meta.authorization_endpoint,
        clientId,
        redirectUri: listener.redirectUri,
        resource,
        scope: "baton",
        secrets,
      });
      await page.goto(start);
      if (page.url().includes("/dashboard/sign-in"))
        await signInByEmail(page, smtp, start, "owner@acme.test");
      await page.waitForSelector('button:has-text("Approve")');
      const shown = (await page.textContent("main")) ?? "";
      for (const text of expectOnPage) expect(shown).toMatch(text);
      await page.click('button:has-text("Approve")');
      await pollUntil(
        () => got.code,
        (code) => code !== undefined,
        { timeoutMs: 15_000 },
      );
      expect(got.iss, "RFC 9207: the answer names its issuer").toBe(meta.issuer);
      const answer = await fetch(meta.token_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: got.code!,
          redirect_uri: listener.redirectUri,
          client_id: clientId,
          code_verifier: secrets.verifier,
          resource,
        }),
      });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { access_token: string }).access_token;
    } finally {
      await listener.close();
    }
  }

  const registerDynamically = async (name: string) => {
    const { meta } = await discover();
    const answer = await fetch(meta.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: name,
        application_type: "native",
        token_endpoint_auth_method: "none",
        redirect_uris: ["http://127.0.0.1/callback"],
      }),
    });
    expect(answer.status).toBe(201);
    return ((await answer.json()) as { client_id: string }).client_id;
  };

  it("registered dynamically (RFC 7591): the approval page names the app and what it may do over MCP; whoami answers as the person", async () => {
    const clientId = await registerDynamically("Desktop MCP client");
    const token = await signIn(clientId, `${serve.url}/v1/mcp`, [
      /Desktop MCP client/,
      /connect to Baton over MCP as owner@acme\.test/,
      /use Baton's MCP tools as you in every workspace/,
    ]);
    const whoami = await callTool(serve.url, token, "whoami");
    expect(whoami.status).toBe(200);
    expect(whoami.body.result?.structuredContent?.user?.name).toBe("Olive Owner");
    expect(serve.output()).not.toContain(token);
  }, 90_000);

  it("by Client ID Metadata Document (an https client_id URL the service fetches): the page names the document's client; whoami answers", async () => {
    const token = await signIn(document.clientId, `${serve.url}/v1/mcp`, [/Docs MCP client/]);
    expect(document.fetches).toBeGreaterThan(0);
    const whoami = await callTool(serve.url, token, "whoami");
    expect(whoami.status).toBe(200);
    expect(whoami.body.result?.structuredContent?.user?.name).toBe("Olive Owner");
  }, 90_000);

  it("a token issued for another resource (<url>/v1) is refused on /v1/mcp with 401 and the metadata pointer", async () => {
    const clientId = await registerDynamically("API client");
    const token = await signIn(clientId, `${serve.url}/v1`, [/API client/]);
    expect(
      (await fetch(`${serve.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
    const refused = await callTool(serve.url, token, "whoami");
    expect(refused.status).toBe(401);
    expect(refused.wwwAuthenticate).toContain("resource_metadata=");
  }, 90_000);

  it("Disconnect on the access-tokens page ends the MCP client's sign-in: its next call is refused", async () => {
    const clientId = await registerDynamically("Disconnect me MCP");
    const token = await signIn(clientId, `${serve.url}/v1/mcp`, [/Disconnect me MCP/]);
    expect((await callTool(serve.url, token, "whoami")).status).toBe(200);
    await page.goto(`${serve.url}/dashboard/tokens`);
    const row = page.locator("tr", { hasText: "Disconnect me MCP" });
    await row.locator("button", { hasText: "Disconnect" }).click();
    await page.click('button:has-text("Disconnect app")');
    await page.waitForSelector("text=The app is disconnected");
    expect((await callTool(serve.url, token, "whoami")).status).toBe(401);
  }, 90_000);
});
