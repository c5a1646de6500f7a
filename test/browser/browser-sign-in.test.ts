import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInWithBrowser } from "../../src/client/browser-sign-in.js";
import type { ServerDeps } from "../../src/server/deps.js";
import { findUserByEmail } from "../../src/server/domain/auth/users.js";
import { disconnectApp, listConnectedApps } from "../../src/server/surfaces/oauth/connected-apps.js";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { pollUntil } from "../helpers/poll.js";
import { FIXTURES, LOUD, type ServeHandle, startServe } from "../helpers/serve.js";
import { signInByEmail } from "../helpers/sign-in-by-email.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.js";

const OWNER = "owner@acme.test";
const FIVE_MINUTES = 5 * 60_000;
/** Every e-mailed link's token: credentials that must appear in no log line. */
const linkTokens: string[] = [];

describe("browser sign-in (RFC 8252) through the approval page", () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let serve: ServeHandle;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    [browser, serve] = await Promise.all([
      launchBrowser(),
      startServe({ seed: `${FIXTURES}/seeds/api.json`, args: ["--smtp-url", smtp.url], env: LOUD }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop(), smtp?.close()]);
  });

  /** Signs in on the e-mailed link in `context`'s page, wherever the approval flow sent it. */
  async function signInAsOwner(context: BrowserContext, url: string): Promise<void> {
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    linkTokens.push(await signInByEmail(page, smtp, url, OWNER));
  }

  async function me(token: string): Promise<Response> {
    return fetch(`${serve.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  }

  async function approvedSignIn(context: BrowserContext, decision: "Approve" | "Deny") {
    let approvalText = "";
    let driverError = "";
    const result = signInWithBrowser({
      apiUrl: serve.url,
      openBrowser: true,
      showUrl: () => {
        throw new Error("the URL is shown only when no browser opens");
      },
      timeoutMs: FIVE_MINUTES,
      openUrl: async (url) => {
        void (async () => {
          await signInAsOwner(context, url);
          const page = context.pages()[0]!;
          await page.waitForSelector(`button:has-text("${decision}")`);
          approvalText = (await page.textContent("main")) ?? "";
          await page.click(`button:has-text("${decision}")`);
        })().catch(async (error: unknown) => {
          const page = context.pages()[0];
          driverError = `${String(error)} at ${page?.url()}: ${await page?.textContent("body").catch(() => "")}`;
        });
      },
    });
    return {
      result: result.catch((error: unknown) => {
        throw new Error(`${String(error)}; browser: ${driverError}`);
      }),
      approvalText: () => approvalText,
      driverError: () => driverError,
    };
  }

  it("the e-mailed link, the approval page naming the app, and the client's token works on GET /v1/me", async () => {
    const context = await newContext(browser);
    const { result, approvalText, driverError } = await approvedSignIn(context, "Approve");
    const { accessToken, expiresAt, refreshToken, clientId } = await Promise.race([
      result,
      pollUntil(driverError, (e) => e !== "", { timeoutMs: 50_000 }).then((e) => {
        throw new Error(e);
      }),
    ]);
    expect(approvalText()).toContain("Baton CLI on");
    expect(approvalText()).toContain("act as you in every workspace you belong to");
    expect(approvalText()).toContain(OWNER);
    // An hour-long access token and the refresh token that renews it (issue 35 B.12).
    expect(Date.parse(expiresAt!)).toBeGreaterThan(Date.now() + 55 * 60_000);
    expect(Date.parse(expiresAt!)).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect(refreshToken).toEqual(expect.any(String));
    expect(clientId).toEqual(expect.any(String));
    const answer = await me(accessToken);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { workspaces: unknown[] }).workspaces.length).toBeGreaterThan(0);
    // The browser saw the client's own page, not the token.
    expect(await context.pages()[0]!.textContent("body")).toContain("You can close this tab");
    // DELETE /v1/me/token ends the sign-in: "a token from a browser sign-in is revoked together with the rest".
    expect(
      (
        await fetch(`${serve.url}/v1/me/token`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${accessToken}` },
        })
      ).status,
    ).toBe(204);
    const after = await me(accessToken);
    expect(after.status).toBe(401);
    expect((await after.json()) as { error: string; reason: string }).toMatchObject({
      error: "invalid_token",
    });
    // `baton serve --json` keeps stdout to its one JSON line: the library's notices go to the debug log.
    expect(serve.stdout().trim().split("\n")).toHaveLength(1);
    // Canary: the token is in no log line and nowhere in the store.
    expect(serve.output()).not.toContain(accessToken);
    for (const token of linkTokens) expect(serve.output()).not.toContain(token);
    expect(await serve.dump()).not.toContain(accessToken);
    await context.close();
  }, 60_000);

  it("Disconnect (the tokens page's disconnectApp) ends the sign-in: its next call gets 401 invalid_token", async () => {
    const context = await newContext(browser);
    const { result } = await approvedSignIn(context, "Approve");
    const { accessToken } = await result;
    expect((await me(accessToken)).status).toBe(200);
    // The tokens page runs inside the service; here the test opens a store on the same data to call it.
    const db = await serve.openStore();
    try {
      const deps = { db, now: () => new Date() } as unknown as ServerDeps;
      const owner = (await findUserByEmail(db, OWNER))!;
      const [app] = await listConnectedApps(deps, owner.id);
      expect(app?.clientName).toMatch(/^Baton CLI on /);
      expect(await disconnectApp(deps, owner.id, app!.grantId)).toBe(true);
    } finally {
      await db.close();
    }
    const after = await me(accessToken);
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: "invalid_token" });
    await context.close();
  }, 60_000);

  it("denial in the browser fails the client with a message saying to run baton login", async () => {
    const context = await newContext(browser);
    const { result } = await approvedSignIn(context, "Deny");
    await expect(result).rejects.toThrow(/denied.*baton login/);
    expect(await context.pages()[0]!.textContent("body")).toContain("denied");
    await context.close();
  }, 60_000);

  it("the client stops waiting after 5 minutes (injected clock) and says to run baton login again", async () => {
    let clock = Date.now();
    let shown = "";
    const waiting = signInWithBrowser({
      apiUrl: serve.url,
      openBrowser: false,
      showUrl: (url) => {
        shown = url;
      },
      timeoutMs: FIVE_MINUTES,
      now: () => clock,
    });
    await pollUntil(
      () => shown,
      (s) => s !== "",
      { timeoutMs: 10_000 },
    );
    expect(shown).toContain("/oauth/authorize?");
    clock += FIVE_MINUTES;
    await expect(waiting).rejects.toThrow(/within 5 minutes; run `baton login` again/);
  }, 30_000);
});
