// What a person sees across the dashboard's pages (issue 37 A.9, A.10), in headless Chromium over a real socket:
// the real public listener over a real SQLite file (fixtures/seeds/api.json, the scripted agent), signed in by a
// session cookie. Times read the same on the task pages and the tokens page, whatever the viewer's time zone; the
// task list's titles have room on a desktop screen; every page's frame leads to the tokens page and back, and an
// error page keeps the frame. Nothing is faked.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../src/server/surfaces/http/node-server.js";
import { PAGE_PATHS, SESSION_COOKIE } from "../../src/server/surfaces/pages/wire.js";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { createPagesHarness, type PagesHarness } from "../integration/pages/harness.js";

const TITLE = "Document the health check endpoint and its failure modes";

let h: PagesHarness;
let browser: Browser;
let server: Server;
let base: string;
let taskUrl: string;

beforeAll(async () => {
  h = await createPagesHarness();
  server = createNodeServer((request) => h.app.listeners.public.fetch(request));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
  // Tokyo: a time the script localised would differ from the tokens page's, which runs no script.
  const page = await signedInPage({ timezoneId: "Asia/Tokyo" });
  await page.goto(`${base}/dashboard/workspaces/ws_acme/tasks/new`);
  await page.fill("#prompt", TITLE);
  await Promise.all([page.waitForURL(/\/tasks\/task_/), page.click("text=Start the task")]);
  taskUrl = page.url().split("?")[0]!;
  await page.waitForSelector(`text=Done: ${TITLE}`);
  await page.context().close();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function signedInPage(options: { width?: number; timezoneId?: string } = {}): Promise<Page> {
  const context = await newContext(browser, options);
  const value = (await h.signIn("owner@acme.test")).slice(`${SESSION_COOKIE}=`.length);
  await context.addCookies([{ name: SESSION_COOKIE, value, url: base, httpOnly: true, sameSite: "Lax" }]);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** The text of every `<time>` on the page once its scripts ran. */
async function timesOn(page: Page): Promise<string[]> {
  await page.waitForLoadState("load");
  return page.locator("time").allTextContents();
}

describe("the dashboard reads the same on every page", () => {
  it("times have one form, with the zone, on the task page, the task list and the tokens page (viewer in Tokyo)", async () => {
    const page = await signedInPage({ timezoneId: "Asia/Tokyo" });
    const seen: string[] = [];
    await page.goto(taskUrl);
    seen.push(...(await timesOn(page)));
    await page.goto(`${base}/dashboard/workspaces/ws_acme/tasks`);
    seen.push(...(await timesOn(page)));
    await page.goto(`${base}${PAGE_PATHS.tokens}`);
    await page.fill("#token-name", "consistency");
    await page.getByRole("button", { name: /Create/ }).click();
    seen.push(...(await timesOn(page)));
    expect(seen.length).toBeGreaterThan(4);
    for (const text of seen) expect(text).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await page.context().close();
  });

  it("the task list's title column has room on a desktop screen: a 56-character title takes at most two lines", async () => {
    const page = await signedInPage({ width: 1280 });
    await page.goto(`${base}/dashboard/workspaces/ws_acme/tasks`);
    const link = page.getByRole("link", { name: TITLE });
    const lines = await link.evaluate((a) => {
      // The page's window (this file is type-checked without the DOM's library).
      const view = globalThis as unknown as { getComputedStyle(e: typeof a): { lineHeight: string } };
      return Math.round(
        a.getBoundingClientRect().height / Number.parseFloat(view.getComputedStyle(a).lineHeight),
      );
    });
    expect(lines).toBeLessThanOrEqual(2);
    await page.context().close();
  });

  it("a 404 keeps the frame: the tokens page is a click away, and the dashboard one more (no dead end)", async () => {
    const page = await signedInPage();
    const answer = await page.goto(`${base}/dashboard/workspaces/ws_acme/tasks/task_missing`);
    expect(answer?.status()).toBe(404);
    expect(await page.textContent("header")).toContain("Signed in as owner@acme.test");
    await expect(page.getByRole("button", { name: "Sign out" }).count()).resolves.toBe(1);
    await Promise.all([
      page.waitForURL(/\/dashboard\/tokens$/),
      page.getByRole("link", { name: "Access tokens" }).click(),
    ]);
    await Promise.all([page.waitForURL(/\/tasks$/), page.getByRole("link", { name: "Dashboard" }).click()]);
    expect(page.url()).toBe(`${base}/dashboard/workspaces/ws_acme/tasks`);
    await page.context().close();
  });
});
