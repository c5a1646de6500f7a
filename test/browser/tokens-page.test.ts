// The access-tokens page in headless Chromium over a real socket: created with the keyboard only, shown once
// (a reload or Back shows no token), revoked by clicking, and readable at 360 px with every control labelled.
// Faked: the connected apps (the authorization server that makes them is built alongside this page; the page
// reaches it only through ConnectedAppsPort), so the 360 px check also sees a Disconnect row. Everything else is
// the real public listener over a real SQLite file.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../src/server/surfaces/http/node-server.js";
import { createTokensPageApp } from "../../src/server/surfaces/pages/tokens/app.js";
import { PAGE_PATHS, SESSION_COOKIE } from "../../src/server/surfaces/pages/wire.js";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { createPagesHarness, type PagesHarness } from "../integration/pages/harness.js";

const APP = {
  grantId: "grant_browser_1",
  clientName: "An MCP client with a rather long name that has to wrap on a phone",
  createdAt: "2026-11-01T09:30:00.000Z",
  lastUsedAt: null,
  expiresAt: "2027-01-30T09:30:00.000Z",
};

let h: PagesHarness;
let browser: Browser;
let server: Server;
let base: string;
const consoleErrors: string[] = [];
beforeAll(async () => {
  h = await createPagesHarness();
  const site = new Hono();
  site.route(
    PAGE_PATHS.tokens,
    createTokensPageApp(h.app.deps, { list: () => [APP], disconnect: () => true }) as unknown as Hono,
  );
  site.all("*", (c) => h.app.listeners.public.fetch(c.req.raw));
  server = createNodeServer(site.fetch);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function signedInPage(width?: number): Promise<Page> {
  const context = await newContext(browser, width ? { width, height: 740 } : {});
  const value = (await h.signIn("dev@acme.test")).slice(`${SESSION_COOKIE}=`.length);
  await context.addCookies([{ name: SESSION_COOKIE, value, url: base, httpOnly: true, sameSite: "Lax" }]);
  const page = await context.newPage();
  // A refused stylesheet would leave the page unstyled without failing anything else: the CSP must allow ours.
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) consoleErrors.push(message.text());
  });
  await page.goto(`${base}${PAGE_PATHS.tokens}`);
  return page;
}

const me = (token: string) => fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
// Page scripts are strings: the project's type check has no DOM library, and these run in the browser.
const activeId = (page: Page) => page.evaluate<string>(`document.activeElement?.id ?? ""`);

/** Controls without a label (a <label>, aria-label, or a button's own words), and the page's widths. */
const AUDIT_SCRIPT = `(() => {
  const controls = [...document.querySelectorAll("input:not([type=hidden]), select, textarea, button")];
  const unlabelled = controls
    .filter((el) => {
      const labels = el.labels ? [...el.labels] : [];
      return !(
        labels.some((label) => label.textContent.trim()) ||
        el.getAttribute("aria-label") ||
        (el.tagName === "BUTTON" && el.textContent.trim())
      );
    })
    .map((el) => el.outerHTML);
  const root = document.documentElement;
  return { unlabelled, scrollWidth: root.scrollWidth, clientWidth: root.clientWidth };
})()`;

describe("the tokens page in Chromium", () => {
  it("the create form can be filled and submitted with the keyboard only; the token is shown once", async () => {
    const page = await signedInPage();
    for (let presses = 0; presses < 40 && (await activeId(page)) !== "token-name"; presses++)
      await page.keyboard.press("Tab");
    expect(await activeId(page)).toBe("token-name");
    await page.keyboard.type("keyboard laptop");
    await page.keyboard.press("Tab");
    expect(await activeId(page)).toBe("token-lifetime");
    await page.keyboard.press("ArrowDown");
    expect(await page.inputValue("#token-lifetime")).toBe("365");
    await page.keyboard.press("Tab");
    const focused = await page.evaluate<{ text: string; outline: string }>(
      `({ text: document.activeElement.textContent, outline: getComputedStyle(document.activeElement).outlineStyle })`,
    );
    expect(focused.text).toBe("Create token");
    expect(focused.outline).toBe("solid");
    await Promise.all([page.waitForLoadState("load"), page.keyboard.press("Enter")]);
    await page.waitForSelector("#created-token");
    const token = await page.inputValue("#created-token");
    expect(token).toMatch(/^btn_/);
    expect(await page.textContent("body")).toContain("you will not see it again");
    expect((await me(token)).status).toBe(200);

    await page.reload();
    expect(await page.content()).not.toContain(token);
    expect(await page.textContent("body")).toContain("keyboard laptop");
    await page.goBack().catch(() => undefined);
    expect(await page.content()).not.toContain(token);
    const made = (await h.db.get(
      "SELECT count(*) AS n FROM personal_access_tokens WHERE name = 'keyboard laptop'",
    )) as { n: number };
    expect(made.n).toBe(1);
    await page.context().close();
  });

  it("Revoke, then confirm: the API's next call with the token is 401", async () => {
    const page = await signedInPage();
    await page.fill("#token-name", "to revoke in chromium");
    await page.selectOption("#token-lifetime", "30");
    await page.click("text=Create token");
    const token = await page.inputValue("#created-token");
    expect((await me(token)).status).toBe(200);
    await page.getByRole("button", { name: /Revoke the token “to revoke in chromium”/ }).click();
    await page.getByRole("button", { name: "Revoke token" }).click();
    expect(await page.textContent("[role=status]")).toContain("The token is revoked");
    const refused = await me(token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe("invalid_token");
    await page.context().close();
  });

  it("at 360 px wide no page scrolls sideways and every control has a label", async () => {
    const page = await signedInPage(360);
    const check = async (what: string) => {
      const found = await page.evaluate<{ unlabelled: string[]; scrollWidth: number; clientWidth: number }>(
        AUDIT_SCRIPT,
      );
      expect(found.unlabelled, what).toEqual([]);
      expect(found.scrollWidth, what).toBeLessThanOrEqual(found.clientWidth);
      expect(found.clientWidth, what).toBe(360);
    };
    await page.fill("#token-name", "phone-sized token with a name long enough to need wrapping somewhere");
    await page.click("text=Create token");
    await page.waitForSelector("#created-token");
    await check("the creation page");
    await page.goto(`${base}${PAGE_PATHS.tokens}`);
    await check("the list");
    await page.getByRole("button", { name: /Disconnect/ }).click();
    await check("the disconnect confirmation");
    await page.goto(`${base}${PAGE_PATHS.tokens}`);
    await page
      .getByRole("button", { name: /Revoke the token/ })
      .first()
      .click();
    await check("the revoke confirmation");
    await page.context().close();
  });

  it("no page broke its own Content Security Policy (a refused stylesheet would be reported)", () => {
    expect(consoleErrors).toEqual([]);
  });
});
