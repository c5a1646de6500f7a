// The dashboard's task pages in headless Chromium against a real `baton serve` (SQLite file, the seed's scripted
// agent, a loopback SMTP server for the e-mailed sign-in link): sign in, start a task, watch a reply arrive
// without a reload while the follow-up box keeps what is typed, follow up, stop a running turn, another
// workspace's user gets 404 on the task's URL; axe-core on every page; the screenshots the docs show.
// Nothing is faked: the only outside party, the SMTP server, is a real one on loopback.
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { PROJECT_ROOT } from "../helpers/cli.js";
import { FIXTURES, LOUD, type ServeHandle, startServe } from "../helpers/serve.js";
import { signInByEmail } from "../helpers/sign-in-by-email.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.js";

const OWNER = "owner@acme.test";
const OWNER_TOKEN = "btn_owner-acme-0000000000000000";
const CANARIES = ["canary-api-db-6e2f91c4-never-print", OWNER_TOKEN];
// Every run keeps its screenshots under test-output/ (ignored by git); with BATON_UPDATE_DOCS_SCREENSHOTS=1 they
// also replace the docs' copies. Writing into docs/ on every run would change tracked files while other suites
// (the docs' shell blocks) check that the checkout stays as it was.
const KEPT = join(PROJECT_ROOT, "test-output", "screenshots");
const IMAGES =
  process.env.BATON_UPDATE_DOCS_SCREENSHOTS === "1" ? join(PROJECT_ROOT, "docs", "images") : KEPT;

let browser: Browser;
let smtp: TestSmtpServer;
let serve: ServeHandle;
let owner: BrowserContext;
let page: Page;
/** Every page's HTML the browser saw, for the canary check. */
const seen: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  [browser, serve] = await Promise.all([
    launchBrowser(),
    startServe({ seed: `${FIXTURES}/seeds/api.json`, args: ["--smtp-url", smtp.url], env: LOUD }),
  ]);
  // Tokyo: the times shown keep the pages' one form (UTC, the zone said), as the tokens page shows them.
  owner = await newContext(browser, { timezoneId: "Asia/Tokyo" });
  page = await owner.newPage();
  page.setDefaultTimeout(15_000);
  await signInByEmail(page, smtp, `${serve.url}/dashboard`, OWNER);
}, 60_000);
afterAll(async () => {
  await Promise.all([browser?.close(), serve?.stop(), smtp?.close()]);
});

async function keep(p: Page): Promise<void> {
  seen.push(await p.content());
}

async function expectAccessible(p: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page: p }).analyze();
  const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.map((v) => `${what}: ${v.id} ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

async function startTask(prompt: string): Promise<string> {
  await page.getByRole("link", { name: "New task" }).click();
  await page.fill("#prompt", prompt);
  await Promise.all([page.waitForURL(/\/tasks\/task_/), page.click("text=Start the task")]);
  return page.url().split("?")[0]!;
}

describe("the dashboard's task pages in Chromium", () => {
  it("sign-in lands on the task list; a started task's page shows the agent's reply and times in UTC with the zone", async () => {
    expect(page.url()).toBe(`${serve.url}/dashboard/workspaces/ws_acme/tasks`);
    await keep(page);
    await expectAccessible(page, "task list (empty)");
    await page.getByRole("link", { name: "New task" }).click();
    await expectAccessible(page, "new task");
    await keep(page);
    const url = await startTask("Document the health check endpoint");
    await page.waitForSelector("text=Done: Document the health check endpoint");
    const time = page.locator("time").first();
    const iso = (await time.getAttribute("datetime"))!;
    expect(await time.getAttribute("title")).toBe(iso);
    expect(await time.textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    await expectAccessible(page, "task page");
    await keep(page);
    expect(url).toMatch(/\/dashboard\/workspaces\/ws_acme\/tasks\/task_/);
  });

  it("a reply appears without a reload and the follow-up box keeps what is being typed across polls", async () => {
    const url = page.url().split("?")[0]!;
    const taskId = url.split("/").at(-1)!;
    await page.evaluate("window.__notReloaded = true");
    await page.fill("#follow-up", "half-typed thought");
    // A teammate follows up through the API while this page stays open.
    const sent = await fetch(`${serve.url}/v1/workspaces/ws_acme/tasks/${taskId}/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${OWNER_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ text: "from the API meanwhile" }),
    });
    expect(sent.status).toBe(202);
    await page.waitForSelector("text=Done: from the API meanwhile", { timeout: 15_000 });
    expect(await page.evaluate("window.__notReloaded")).toBe(true);
    expect(await page.inputValue("#follow-up")).toBe("half-typed thought");
    // The Task's `url` from the API is this page.
    const task = (await (
      await fetch(`${serve.url}/v1/workspaces/ws_acme/tasks/${taskId}`, {
        headers: { authorization: `Bearer ${OWNER_TOKEN}` },
      })
    ).json()) as { url: string };
    expect(task.url).toBe(url);
  });

  it("a follow-up from the box gets the agent's reply", async () => {
    await page.fill("#follow-up", "add an example too");
    await Promise.all([page.waitForURL(/notice=sent/), page.click("text=Send")]);
    await page.waitForSelector("text=Done: add an example too");
    expect(await page.inputValue("#follow-up")).toBe("");
    await keep(page);
  });

  it("Stop ends a running turn and the page says so in words", async () => {
    await startTask("slow migration of the billing tables");
    await page.waitForSelector("text=Stop this turn");
    await Promise.all([page.waitForURL(/notice=stopped/), page.click("text=Stop this turn")]);
    expect(await page.textContent("#task-status")).toContain("Stopped");
    expect(await page.textContent("main")).toContain("stopped");
    await keep(page);
  });

  it("a task can be started with the keyboard alone, picking a repository", async () => {
    await page.goto(`${serve.url}/dashboard/workspaces/ws_acme/tasks/new`);
    const active = () =>
      page.evaluate<string>(`document.activeElement?.id || document.activeElement?.textContent || ""`);
    for (let presses = 0; presses < 30 && (await active()) !== "prompt"; presses++)
      await page.keyboard.press("Tab");
    expect(await active()).toBe("prompt");
    await page.keyboard.type("typed without a mouse");
    await page.keyboard.press("Tab");
    expect(await active()).toBe("title");
    await page.keyboard.press("Tab");
    expect(await active()).toBe("repo");
    await page.keyboard.press("ArrowDown");
    expect(await page.inputValue("#repo")).toBe("acme/api");
    await page.keyboard.press("Tab");
    expect(await active()).toBe("Start the task");
    await Promise.all([page.waitForURL(/notice=started/), page.keyboard.press("Enter")]);
    expect(await page.textContent(".facts")).toContain("acme/api");
  });

  it("without JavaScript the pages still work: a task starts from the form and a reload shows the reply", async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    await context.addCookies(await owner.cookies());
    const plain = await context.newPage();
    plain.setDefaultTimeout(15_000);
    await plain.goto(`${serve.url}/dashboard/workspaces/ws_acme/tasks/new`);
    await plain.fill("#prompt", "no script here");
    await Promise.all([plain.waitForURL(/notice=started/), plain.click("text=Start the task")]);
    const deadline = Date.now() + 10_000;
    while (!(await plain.textContent("main"))?.includes("Done: no script here") && Date.now() < deadline)
      await plain.reload();
    expect(await plain.textContent("main")).toContain("Done: no script here");
    // Without the script the time reads exactly as with it: the pages' one form, UTC with the zone.
    const time = plain.locator("time").first();
    const iso = (await time.getAttribute("datetime"))!;
    expect(await time.textContent()).toBe(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`);
    await context.close();
  });

  it("screenshots of the task list and a task page at 360 and 1280 px, readable without sideways scrolling", async () => {
    await mkdir(IMAGES, { recursive: true });
    const tasks = `${serve.url}/dashboard/workspaces/ws_acme/tasks`;
    await page.goto(tasks);
    const taskUrl = await page
      .getByRole("link", { name: "Document the health check endpoint" })
      .getAttribute("href");
    for (const width of [360, 1280]) {
      const context = await newContext(browser, { width, height: width === 360 ? 740 : 800 });
      await context.addCookies(await owner.cookies());
      const view = await context.newPage();
      for (const [name, path] of [
        ["tasks", tasks],
        ["task", `${serve.url}${taskUrl}`],
      ] as const) {
        await view.goto(path);
        const widths = await view.evaluate<{ scroll: number; client: number }>(
          "({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })",
        );
        expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.client);
        await expectAccessible(view, `${name} at ${width} px`);
        const shot = join(IMAGES, `dashboard-${name}-${width}.png`);
        await view.screenshot({ path: shot, fullPage: true });
        expect((await stat(shot)).size, shot).toBeGreaterThan(1000);
      }
      await context.close();
    }
  });

  it("a user of another workspace gets 404 on the task's URL", async () => {
    const url = `${serve.url}${await page
      .goto(`${serve.url}/dashboard/workspaces/ws_acme/tasks`)
      .then(() =>
        page.getByRole("link", { name: "Document the health check endpoint" }).getAttribute("href"),
      )}`;
    const other = await newContext(browser);
    const strangerPage = await other.newPage();
    strangerPage.setDefaultTimeout(15_000);
    await signInByEmail(strangerPage, smtp, `${serve.url}/dashboard`, "stranger@other.test");
    const answer = await strangerPage.goto(url);
    expect(answer?.status()).toBe(404);
    expect(await strangerPage.textContent("main")).toContain("no such workspace");
    await expectAccessible(strangerPage, "404 page");
    await other.close();
  });

  it("no seeded secret or token is on any page or in the service's output", () => {
    expect(seen.length).toBeGreaterThan(3);
    for (const html of seen) for (const canary of CANARIES) expect(html).not.toContain(canary);
    for (const canary of CANARIES) expect(serve.output()).not.toContain(canary);
  });
});
