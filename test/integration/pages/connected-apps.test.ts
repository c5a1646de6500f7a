// The tokens page's "Connected apps" section (reference section 2: "an OAuth grant listed under Connected apps on
// the same page ... Disconnect ends it immediately"): listed by app name, when connected and last used, with a
// Disconnect that confirms first, needs the session's CSRF token, and touches only the signed-in user's apps.
// Faked: the grants. The authorization server that makes them is built alongside this page (oauth/); the page
// reaches it only through ConnectedAppsPort, so this test passes a recording port in its place. The end-to-end
// "Disconnect ends the next call" runs with the real server in the sign-in flow's browser test.
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConnectedApp } from "../../../src/server/surfaces/oauth/connected-apps.js";
import {
  type ConnectedAppsPort,
  createTokensPageApp,
} from "../../../src/server/surfaces/pages/tokens/app.js";
import { NOTICES, TOKENS_PAGE_PATHS } from "../../../src/server/surfaces/pages/tokens/wire.js";
import { CSRF_FIELD, PAGE_PATHS } from "../../../src/server/surfaces/pages/wire.js";
import { createPagesHarness, csrfOf, type PagesHarness } from "./harness.js";

const APP: ConnectedApp = {
  grantId: "grant_cli_1",
  clientName: "baton command-line client",
  createdAt: "2026-11-01T09:30:00.000Z",
  lastUsedAt: "2026-11-20T17:05:00.000Z",
  expiresAt: "2027-01-30T09:30:00.000Z",
};
const OTHERS: ConnectedApp = { ...APP, grantId: "grant_owner_1", clientName: "Owner's <editor>" };

let h: PagesHarness;
let pages: Hono;
let devId: string;
const disconnected: [string, string][] = [];
beforeAll(async () => {
  h = await createPagesHarness();
  devId = (await h.user("dev@acme.test")).id;
  const grants = new Map<string, ConnectedApp[]>([
    [devId, [APP]],
    [(await h.user("owner@acme.test")).id, [OTHERS]],
  ]);
  const port: ConnectedAppsPort = {
    list: (userId) => grants.get(userId) ?? [],
    disconnect: (userId, grantId) => {
      disconnected.push([userId, grantId]);
      return (grants.get(userId) ?? []).some((one) => one.grantId === grantId);
    },
  };
  pages = new Hono();
  pages.route(PAGE_PATHS.tokens, createTokensPageApp(h.app.deps, port) as unknown as Hono);
});
afterAll(async () => {
  await h?.close();
});

const post = (path: string, cookie: string, form: Record<string, string>) =>
  pages.request(path, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
    redirect: "manual",
  });
const open = async (cookie: string) =>
  (await pages.request(PAGE_PATHS.tokens, { headers: { cookie } })).text();

describe("connected apps", () => {
  it("lists the user's apps by name, when connected and when last used, and no one else's", async () => {
    const page = await open(await h.signIn("dev@acme.test"));
    expect(page).toContain("baton command-line client");
    expect(page).toContain("2026-11-01 09:30 UTC");
    expect(page).toContain("2026-11-20 17:05 UTC");
    expect(page).not.toContain("Owner&#39;s");
    expect(page).not.toContain(OTHERS.grantId);
  });

  it("Disconnect asks to confirm, then ends the grant and says it takes effect at the app's next call", async () => {
    const cookie = await h.signIn("dev@acme.test");
    const asked = await post(TOKENS_PAGE_PATHS.disconnect, cookie, {
      [CSRF_FIELD]: csrfOf(await open(cookie)),
      grantId: APP.grantId,
    });
    expect(asked.status).toBe(200);
    const question = await asked.text();
    expect(question).toContain("Disconnect “baton command-line client”?");
    expect(disconnected).toEqual([]);
    const done = await post(TOKENS_PAGE_PATHS.disconnect, cookie, {
      [CSRF_FIELD]: csrfOf(question),
      grantId: APP.grantId,
      confirm: "yes",
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${PAGE_PATHS.tokens}?notice=${NOTICES.disconnected}`);
    expect(disconnected).toEqual([[devId, APP.grantId]]);
    const notice = await (await pages.request(done.headers.get("location")!, { headers: { cookie } })).text();
    expect(notice).toContain("Its next call is refused");
  });

  it.each([
    ["no CSRF token", {}, 403],
    ["a wrong CSRF token", { [CSRF_FIELD]: "y".repeat(43) }, 403],
  ] as const)("Disconnect with %s is refused (%i) and disconnects nothing", async (_what, csrf, status) => {
    const before = disconnected.length;
    const answer = await post(TOKENS_PAGE_PATHS.disconnect, await h.signIn("dev@acme.test"), {
      ...csrf,
      grantId: APP.grantId,
      confirm: "yes",
    });
    expect(answer.status).toBe(status);
    expect(disconnected.length).toBe(before);
  });

  it("another user's app cannot be disconnected: not found, and the port is never asked", async () => {
    const cookie = await h.signIn("dev@acme.test");
    const before = disconnected.length;
    const answer = await post(TOKENS_PAGE_PATHS.disconnect, cookie, {
      [CSRF_FIELD]: csrfOf(await open(cookie)),
      grantId: OTHERS.grantId,
      confirm: "yes",
    });
    expect(answer.status).toBe(404);
    expect(await answer.text()).toContain("no such connected app");
    expect(disconnected.length).toBe(before);
  });

  it("with no apps the section says how one gets there", async () => {
    const page = await open(await h.signIn("nolink@acme.test"));
    expect(page).toContain("No apps are connected");
    expect(page).toContain("baton login");
  });
});
