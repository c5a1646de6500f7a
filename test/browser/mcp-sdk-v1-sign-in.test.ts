// Issue 35's client list: the MCP TypeScript SDK 1.x (the package MCP hosts ship) signs in to a real `baton serve`
// end to end, with the person's part in Chromium: the SDK's 401 discovery and registration, the sign-in by e-mailed
// link, the approval page (which says the app connects over MCP), the redirect back with the code, the token, a
// tool call, and the SDK's own refresh when its access token stops working. Nothing is faked but the redirect's
// loopback listener: Chromium's request to it is answered by the test, which reads the code from its URL.
import { UnauthorizedError } from "mcp-sdk-v1/client/auth.js";
import { Client } from "mcp-sdk-v1/client/index.js";
import { StreamableHTTPClientTransport } from "mcp-sdk-v1/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { FIXTURES, type ServeHandle, startServe } from "../helpers/serve.js";
import { signInByEmail } from "../helpers/sign-in-by-email.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.js";
import { InMemoryProvider } from "../integration/oauth/mcp-sdk-v1-provider.js";

const OWNER = "owner@acme.test";
const REDIRECT_URI = "http://127.0.0.1:8977/callback";

describe("the MCP SDK 1.x signs in with the person approving in Chromium", () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let serve: ServeHandle;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    [browser, serve] = await Promise.all([
      launchBrowser(),
      startServe({ seed: `${FIXTURES}/seeds/api.json`, args: ["--smtp-url", smtp.url] }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop(), smtp?.close()]);
  });

  it("registers, signs in by e-mailed link, approves, calls whoami over MCP, and refreshes on its own", async () => {
    const context = await newContext(browser);
    let approvalText = "";
    const provider = new InMemoryProvider(REDIRECT_URI, async (authorizationUrl) => {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      let redirected: URL | undefined;
      // The app's loopback listener: the browser's request arrives here and the page shows the app's answer.
      await context.route(`${REDIRECT_URI}**`, async (route) => {
        redirected = new URL(route.request().url());
        await route.fulfill({
          status: 200,
          contentType: "text/plain",
          body: "Signed in; return to the app.",
        });
      });
      await signInByEmail(page, smtp, authorizationUrl.toString(), OWNER);
      await page.waitForSelector('button:has-text("Approve")');
      approvalText = (await page.textContent("main")) ?? "";
      await page.click('button:has-text("Approve")');
      await page.waitForSelector("text=Signed in; return to the app.");
      expect(redirected?.searchParams.get("iss")).toBe(serve.url);
      return redirected?.searchParams.get("code") ?? "";
    });
    const endpoint = new URL(`${serve.url}/v1/mcp`);
    const tokenRequests: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (url.pathname === "/oauth/token") tokenRequests.push(String(init?.body));
      return fetch(input, init);
    };

    const firstTransport = new StreamableHTTPClientTransport(endpoint, {
      authProvider: provider,
      fetch: recording,
    });
    await expect(
      new Client({ name: "chromium-test", version: "1.0.0" }).connect(firstTransport),
    ).rejects.toThrow(UnauthorizedError);
    expect(approvalText).toContain("MCP SDK 1.x test client");
    expect(approvalText).toContain("MCP");
    expect(provider.code).not.toBe("");
    await firstTransport.finishAuth(provider.code);
    const first = provider.saved!;
    expect(first.expires_in).toBeLessThanOrEqual(3600);
    expect(first.refresh_token).toEqual(expect.any(String));

    const client = new Client({ name: "chromium-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(endpoint, { authProvider: provider, fetch: recording }),
    );
    const whoami = async () => {
      const result = await client.callTool({ name: "whoami", arguments: {} });
      expect(result.isError).toBeFalsy();
      return (result.structuredContent as { user: { email?: string; id: string } }).user;
    };
    const me = await whoami();
    expect(me.id).toMatch(/\S/);

    // The access token stops working (as after its hour): the SDK refreshes on its own, the person sees nothing.
    provider.saved = { ...first, access_token: "no-longer-valid" };
    const before = tokenRequests.length;
    expect((await whoami()).id).toBe(me.id);
    expect(tokenRequests.slice(before).map((body) => new URLSearchParams(body).get("grant_type"))).toEqual([
      "refresh_token",
    ]);
    expect(provider.saved.refresh_token).not.toBe(first.refresh_token);
    expect(provider.authorizations).toHaveLength(1);
    await client.close();
    await context.close();
  }, 90_000);
});
