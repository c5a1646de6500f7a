// The dashboard's ticket picker (issue 25) in process: the real public listener, a real SQLite file seeded with
// fixtures/seeds/api.json (its local tracker and code-host issues stand in for the platforms, which are not
// reachable here), a browser played by a session cookie. The picker must list what GET .../tickets lists and
// delegate through the same delegateTicket, showing each refusal's reason as written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delegatePath, tasksPath, ticketsPath } from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { createPagesHarness, csrfOf, type PagesHarness } from "../pages/harness.js";

let h: PagesHarness;
let dev: string;
beforeAll(async () => {
  h = await createPagesHarness();
  dev = await h.signIn("dev@acme.test");
});
afterAll(async () => {
  await h.close();
});

const picker = (cookie: string, ws = "ws_acme", query = "") =>
  h.page("GET", `${ticketsPath(ws)}${query}`, { cookie });
const listed = (page: string) =>
  [...page.matchAll(/<span class="vh"> ([^<]+)<\/span><\/button>/g)].map((m) => m[1]);
async function delegate(cookie: string, fields: Record<string, string>, ws = "ws_acme") {
  const csrf = csrfOf((await picker(cookie, ws)).text);
  return h.page("POST", delegatePath(ws), { cookie, form: { csrf, ...fields } });
}
const tasksOn = async (ticketId: string) =>
  ((await h.db.get("SELECT count(*) AS n FROM tasks WHERE ticket_id = ?", [ticketId])) as { n: number }).n;
const allTasks = async () => ((await h.db.get("SELECT count(*) AS n FROM tasks")) as { n: number }).n;

describe("GET the ticket picker", () => {
  it("lists the search's tickets in its order: the caller's own first, then the team's unassigned; tracker before code host", async () => {
    const page = await picker(dev);
    expect(page.status).toBe(200);
    expect(listed(page.text)).toEqual(["ENG-1", "ENG-2", "acme/api#7", "acme/web#3"]);
  });

  it("q and repo reach the same search: a substring of a title; an enabled repository searched first", async () => {
    expect(listed((await picker(dev, "ws_acme", "?q=rate%20limiting")).text)).toEqual(["ENG-2"]);
    const first = await picker(await h.signIn("owner@acme.test"), "ws_acme", "?repo=acme%2Fweb");
    expect(first.text).toContain("acme/web is searched first.");
    expect(first.text).toMatch(/<option value="acme\/web" selected>/);
  });

  it("q over 200 characters is refused 400 with the API's reason", async () => {
    const page = await picker(dev, "ws_acme", `?q=${"a".repeat(201)}`);
    expect(page.status).toBe(400);
    expect(page.text).toContain("q is over 200 characters; shorten the search");
  });

  it.each([
    [
      "nolink@acme.test",
      "ws_acme",
      "your tracker account is not linked",
      "/install/tracker?workspace=ws_acme",
    ],
    ["unbound@acme.test", "ws_acme", "belongs to another tracker", "/install/tracker?workspace=ws_acme"],
    ["dev@acme.test", "ws_nohost", "The code host is not connected", "/install/codehost?workspace=ws_nohost"],
    [
      "dev@acme.test",
      "ws_nohost",
      "The tracker is not connected",
      "/dashboard/workspaces/ws_nohost/settings",
    ],
  ])(
    "says the connection facts in words with a link to fix them (%s in %s: %s)",
    async (email, ws, words, href) => {
      const page = await picker(await h.signIn(email), ws);
      expect(page.status).toBe(200);
      expect(page.text).toContain(words);
      expect(page.text).toContain(`href="${href}"`);
    },
  );

  it.each([
    ["a workspace the user is not in", "ws_aaa_other"],
    ["a workspace that does not exist", "ws_nope"],
  ])("answers 404 for %s, alike", async (_case, ws) => {
    const page = await picker(dev, ws);
    expect(page.status).toBe(404);
    expect(page.text).toContain("no such workspace");
  });

  it("a personal access token never authenticates a page: a bearer without a session is sent to sign in", async () => {
    const page = await h.page("GET", ticketsPath("ws_acme"), {
      headers: { authorization: "Bearer btn_dev-acme-00000000000000000000" },
    });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/dashboard\/sign-in\?next=/);
  });

  it("without a session it sends the browser to sign in, back to the picker afterwards", async () => {
    const page = await h.page("GET", ticketsPath("ws_acme"));
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(
      `/dashboard/sign-in?next=${encodeURIComponent(ticketsPath("ws_acme"))}`,
    );
  });
});

describe("POST Delegate", () => {
  it("delegates as the caller and says the task appears in the list once picked up", async () => {
    const answer = await delegate(dev, { source: "tracker", id: "ENG-2" });
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${ticketsPath("ws_acme")}?delegated=ENG-2`);
    expect(await tasksOn("trk_2")).toBe(1);
    const after = await h.page("GET", answer.headers.get("location")!, { cookie: dev });
    expect(after.text).toContain("ENG-2 is delegated. Its task will appear in the");
    expect(after.text).toContain(`href="${tasksPath("ws_acme")}"`);
    expect(listed(after.text)).not.toContain("ENG-2");
  });

  it.each([
    [
      "an issue assigned to someone else",
      "dev@acme.test",
      { source: "tracker", id: "ENG-3" },
      409,
      "ENG-3 is assigned to someone else; unassign it first",
      "/dashboard/workspaces/ws_acme/tickets",
    ],
    [
      "a closed issue",
      "dev@acme.test",
      { source: "tracker", id: "ENG-4" },
      409,
      "ENG-4 is closed; reopen it first",
      "/dashboard/workspaces/ws_acme/tickets",
    ],
    [
      "a pull request",
      "dev@acme.test",
      { source: "codehost", repo: "acme/api", number: "8" },
      409,
      "acme/api#8 is a pull request; delegate an issue",
      "/dashboard/workspaces/ws_acme/tickets",
    ],
    [
      "a repository that is not enabled",
      "dev@acme.test",
      { source: "codehost", repo: "acme/old", number: "1" },
      400,
      "acme/old is not enabled in this workspace",
      "/dashboard/workspaces/ws_acme/settings",
    ],
    [
      "an unlinked tracker identity",
      "nolink@acme.test",
      { source: "tracker", id: "ENG-2" },
      409,
      "link your tracker identity first",
      "/install/tracker?workspace=ws_acme",
    ],
    [
      "a form naming no ticket",
      "dev@acme.test",
      { source: "elsewhere" },
      400,
      "The form names no ticket",
      "/dashboard/workspaces/ws_acme/tickets",
    ],
  ])(
    "refuses %s with the API's status, its reason as written, and what to do next",
    async (_case, email, fields, status, reason, next) => {
      const answer = await delegate(await h.signIn(email), fields);
      expect(answer.status).toBe(status);
      expect(answer.text).toContain(reason);
      expect(answer.text).toMatch(new RegExp(`What to do next: <a href="${next.replace(/[?/]/g, "\\$&")}"`));
    },
  );

  it("refuses a form without the session's CSRF token (403) and delegates nothing", async () => {
    const before = allTasks();
    const answer = await h.page("POST", delegatePath("ws_acme"), {
      cookie: dev,
      form: { csrf: "forged", source: "codehost", repo: "acme/web", number: "3" },
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("This form has expired");
    expect(await allTasks()).toBe(await before);
  });

  it("answers 404 for a workspace the user is not in, and delegates nothing there", async () => {
    const before = allTasks();
    const csrf = csrfOf((await picker(dev)).text);
    const answer = await h.page("POST", delegatePath("ws_aaa_other"), {
      cookie: dev,
      form: { csrf, source: "tracker", id: "ENG-1" },
    });
    expect(answer.status).toBe(404);
    expect(await allTasks()).toBe(await before);
  });
});
