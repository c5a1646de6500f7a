// No dashboard page is a dead end (issue 37 A.9), in process: the real public listener over a real SQLite file
// (fixtures/seeds/api.json), a signed-in browser played by a session cookie. The frame of every page links to
// the tokens page, the tokens page links back to the dashboard, and a 404 (another workspace's task, an unknown
// task, a mistyped address) or another refusal keeps the frame: who is signed in, sign-out, the workspaces.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newTaskPath, taskPath, tasksPath } from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { CSRF_FIELD, PAGE_PATHS } from "../../../src/server/surfaces/pages/wire.js";
import { createPagesHarness, csrfOf, inputValue, type PagesHarness } from "../pages/harness.js";

let h: PagesHarness;
let dev: string;

beforeAll(async () => {
  h = await createPagesHarness();
  // dev@acme.test belongs to several workspaces, so the switcher is a list of links.
  dev = await h.signIn("dev@acme.test");
});
afterAll(async () => h?.close());

const hrefsOf = (page: string) => [...page.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]!);
const switcherOf = (page: string) => /<nav class="workspaces"[\s\S]*?<\/nav>/.exec(page)?.[0] ?? "";

/** What the frame shows a signed-in reader: who, sign-out, the tokens page and every workspace of theirs. */
function expectFrame(page: string, memberOf: readonly string[]) {
  expect(page).toContain("Signed in as dev@acme.test");
  expect(page).toMatch(new RegExp(`<form method="post" action="${PAGE_PATHS.signOut}">`));
  expect(hrefsOf(page)).toContain(PAGE_PATHS.tokens);
  for (const ws of memberOf) expect(switcherOf(page)).toContain(`href="${tasksPath(ws)}"`);
}

describe("the dashboard's frame", () => {
  it("every page's frame links to the tokens page, and the tokens page links back to the dashboard", async () => {
    const list = await h.page("GET", tasksPath("ws_acme"), { cookie: dev });
    expect(list.status).toBe(200);
    expectFrame(list.text, ["ws_acme", "ws_broke"]);
    const tokens = await h.page("GET", PAGE_PATHS.tokens, { cookie: dev });
    expect(tokens.status).toBe(200);
    const away = hrefsOf(tokens.text).filter((href) => !href.startsWith(PAGE_PATHS.tokens));
    expect(away).toContain("/dashboard");
    expect(tokens.text).toMatch(/<a href="\/dashboard\/tokens" aria-current="page">Access tokens<\/a>/);
  });

  it.each([
    ["another workspace's task", taskPath("ws_aaa_other", "task_x"), undefined],
    ["an unknown task of the reader's workspace", taskPath("ws_acme", "task_missing"), "ws_acme"],
    ["an unknown page inside a workspace", "/dashboard/workspaces/ws_acme/nothing-here", "ws_acme"],
    ["an unknown page of the dashboard", "/dashboard/nothing-here", undefined],
  ])("a 404 for %s keeps the frame (HTML, never the API's JSON)", async (_name, path, current) => {
    const page = await h.page("GET", path, { cookie: dev });
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.text).toContain("<h1>Not found</h1>");
    expectFrame(page.text, ["ws_acme", "ws_broke"]);
    // Inside a workspace of the reader's, its sections too; outside one, no workspace is marked current.
    if (current) expect(page.text).toContain(`<a href="${tasksPath(current)}">Tasks</a>`);
    else expect(switcherOf(page.text)).not.toContain("aria-current");
  });

  it("a refused form (too large) keeps the frame too", async () => {
    const form = await h.page("GET", newTaskPath("ws_acme"), { cookie: dev });
    const answer = await h.page("POST", tasksPath("ws_acme"), {
      cookie: dev,
      form: {
        [CSRF_FIELD]: csrfOf(form.text),
        key: inputValue(form.text, "key"),
        prompt: "x".repeat(1_400_000),
      },
    });
    expect(answer.status).toBe(413);
    expectFrame(answer.text, ["ws_acme", "ws_broke"]);
  });

  it("a form without the session's CSRF token is refused (403, 'This form has expired') in the frame; on the tokens page under its header", async () => {
    const answer = await h.page("POST", tasksPath("ws_acme"), { cookie: dev, form: { prompt: "x" } });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("<h1>This form has expired</h1>");
    expectFrame(answer.text, ["ws_acme", "ws_broke"]);
    const tokens = await h.page("POST", PAGE_PATHS.tokens, { cookie: dev, form: { name: "x" } });
    expect(tokens.status).toBe(403);
    expect(tokens.text).toContain("<h1>This form has expired</h1>");
    expect(tokens.text).toContain("Signed in as dev@acme.test");
  });

  it("an unknown dashboard page without a session is a plain HTML 404 that leads to the dashboard", async () => {
    const page = await h.page("GET", "/dashboard/nothing-here");
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).not.toContain("Signed in as");
    expect(hrefsOf(page.text)).toContain("/dashboard");
  });

  it("other methods keep their answers: a GET of a POST-only page is still 405 naming POST", async () => {
    const answer = await h.page("GET", PAGE_PATHS.signOut, { cookie: dev });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
  });
});
