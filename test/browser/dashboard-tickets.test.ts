// The dashboard's ticket picker, settings, billing and capability-request pages in headless Chromium over a real
// socket: delegate a seeded ticket by clicking, dismiss a capability request as an admin and be refused as a
// member, supply a secret (a canary that then appears in no page, no answer and no log line), and axe-core finds
// nothing serious or critical on each page. Faked: the tracker and code host are the seed's local adapters
// (fixtures/seeds/api.json), since no platform is reachable here; capability requests are inserted as the sandbox
// side stores them. Everything else is the real public listener over a real SQLite file.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../src/server/surfaces/http/node-server.js";
import {
  billingPath,
  capabilityRequestPath,
  capabilityRequestsPath,
  settingsPath,
  ticketsPath,
} from "../../src/server/surfaces/pages/dashboard/wire.js";
import { SESSION_COOKIE } from "../../src/server/surfaces/pages/wire.js";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { createPagesHarness, type PagesHarness } from "../integration/pages/harness.js";

const CANARY = "canary-browser-secret-8d2a41f0-never-shown";
let h: PagesHarness;
let browser: Browser;
let server: Server;
let base: string;
const served: string[] = [];

beforeAll(async () => {
  h = await createPagesHarness();
  const at = new Date().toISOString();
  for (const [id, target] of [
    ["cr_b_dismiss", "api.dismiss.test"],
    ["cr_b_secret", "api.secret.test"],
  ] as const)
    await h.db.run(
      `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason, status, created_at, updated_at)
         VALUES (?, 'ws_acme', 'repo_api', 'acme/api', 'api_key', ?, 'host', 'the tests call this API', 'open', ?, ?)`,
      [id, target, at, at],
    );
  server = createNodeServer(async (request: Request) => {
    const response = await h.app.listeners.public.fetch(request);
    served.push(await response.clone().text());
    return response;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function signedIn(email: string, path: string): Promise<Page> {
  const context = await newContext(browser);
  const value = (await h.signIn(email)).slice(`${SESSION_COOKIE}=`.length);
  await context.addCookies([{ name: SESSION_COOKIE, value, url: base, httpOnly: true, sameSite: "Lax" }]);
  const page = await context.newPage();
  await page.goto(`${base}${path}`);
  return page;
}

/** axe-core's findings that matter: serious or critical. */
async function seriousFindings(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
const statusOf = async (id: string) =>
  ((await h.db.get("SELECT status FROM capability_requests WHERE id = ?", [id])) as { status: string })
    .status;

describe("the dashboard's ticket and capability pages in Chromium", () => {
  it("delegates a seeded ticket by clicking its Delegate button; a second click elsewhere shows the refusal's reason and what to do next", async () => {
    const page = await signedIn("dev@acme.test", ticketsPath("ws_acme"));
    // Another member's picker, opened before the delegation, still offers the ticket.
    const stale = await signedIn("owner@acme.test", ticketsPath("ws_acme"));
    expect(await seriousFindings(page)).toEqual([]);
    await page.getByRole("button", { name: "Delegate acme/web#3" }).click();
    await page.waitForURL(/delegated=/);
    expect(await page.getByRole("status").innerText()).toContain("acme/web#3 is delegated");
    expect(await page.getByRole("link", { name: "task list" }).getAttribute("href")).toBe(
      "/dashboard/workspaces/ws_acme/tasks",
    );
    expect(await page.getByRole("button", { name: "Delegate acme/web#3" }).count()).toBe(0);
    expect(await seriousFindings(page)).toEqual([]);
    await stale.getByRole("button", { name: "Delegate acme/web#3" }).click();
    await stale.waitForLoadState();
    const alert = await stale.getByRole("alert").innerText();
    expect(alert).toContain("acme/web#3");
    expect(alert).toContain("What to do next");
    expect(await seriousFindings(stale)).toEqual([]);
    await page.context().close();
    await stale.context().close();
  });

  it("settings and billing pages have no serious or critical accessibility findings", async () => {
    const page = await signedIn("owner@acme.test", settingsPath("ws_acme"));
    expect(
      await page
        .getByRole("link", { name: "Add repositories or another code-host account" })
        .getAttribute("href"),
    ).toBe("/install/codehost?workspace=ws_acme");
    expect(await seriousFindings(page)).toEqual([]);
    await page.goto(`${base}${billingPath("ws_acme")}`);
    expect(await seriousFindings(page)).toEqual([]);
    await page.goto(`${base}${capabilityRequestsPath("ws_acme", "repo_api")}`);
    expect(await seriousFindings(page)).toEqual([]);
    await page.context().close();
  });

  it("a member sees the request but no Not now; a forged member POST is refused 403 on the request page", async () => {
    const page = await signedIn(
      "dev@acme.test",
      capabilityRequestPath("ws_acme", "repo_api", "cr_b_dismiss"),
    );
    expect(await page.getByRole("button", { name: "Not now" }).count()).toBe(0);
    expect(await page.getByText("Only an owner or admin of the workspace can dismiss").count()).toBe(1);
    // The member's browser posts the form an admin would see (with the member's own session and CSRF token).
    const csrf = await page.locator('input[name="csrf"]').first().getAttribute("value");
    const answer = await page.request.post(`${page.url()}/dismiss`, { form: { csrf: csrf ?? "" } });
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain("only an owner or admin of Acme can do this");
    expect(await statusOf("cr_b_dismiss")).toBe("open");
    expect(await seriousFindings(page)).toEqual([]);
    await page.context().close();
  });

  it("an admin dismisses the request with Not now", async () => {
    const page = await signedIn(
      "unbound@acme.test",
      capabilityRequestPath("ws_acme", "repo_api", "cr_b_dismiss"),
    );
    expect(await seriousFindings(page)).toEqual([]);
    await page.getByRole("button", { name: "Not now" }).click();
    await page.waitForURL(/done=dismissed/);
    expect(await page.getByRole("status").innerText()).toContain("Dismissed");
    expect(await statusOf("cr_b_dismiss")).toBe("dismissed");
    await page.context().close();
  });

  it("an owner supplies a secret; its value appears in no page, no answer and no log line", async () => {
    const page = await signedIn(
      "owner@acme.test",
      capabilityRequestPath("ws_acme", "repo_api", "cr_b_secret"),
    );
    await page.getByLabel("Secret name").fill("SECRET_API_KEY");
    await page.getByLabel("Value").fill(CANARY);
    expect(await page.getByLabel("Approved hosts").inputValue()).toBe("api.secret.test");
    await page.getByRole("button", { name: "Save the secret" }).click();
    await page.waitForURL(/done=secret/);
    expect(await page.getByRole("status").innerText()).toContain("The secret is saved");
    expect(await statusOf("cr_b_secret")).toBe("verification_pending");
    expect(await page.content()).not.toContain(CANARY);
    expect(await seriousFindings(page)).toEqual([]);
    expect(served.filter((text) => text.includes(CANARY))).toEqual([]);
    expect(h.logs.filter((line) => line.includes(CANARY))).toEqual([]);
    await page.context().close();
  });
});
