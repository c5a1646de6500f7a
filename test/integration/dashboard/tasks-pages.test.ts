// The dashboard's task pages in process: the real public listener over a real SQLite file (fixtures/seeds/api.json,
// the scripted agent), a signed-in browser played by a session cookie and urlencoded forms as a browser posts them.
// Every route: a member of another workspace gets 404, a form without the CSRF token is refused, and a double
// submit (the same hidden idempotency key) starts or sends once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upsertUser } from "../../../src/server/domain/auth/users.js";
import { insertTask } from "../../../src/server/domain/tasks/task-store.js";
import { DASHBOARD_SCRIPT } from "../../../src/server/surfaces/pages/dashboard/script.js";
import {
  DASHBOARD_HOME,
  DASHBOARD_SCRIPT_PATH,
  newTaskPath,
  taskMessagesPath,
  taskPath,
  taskStopPath,
  tasksPath,
  taskUpdatesPath,
} from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { CSRF_FIELD } from "../../../src/server/surfaces/pages/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { createPagesHarness, csrfOf, inputValue, type PagesHarness } from "../pages/harness.js";

const WS = "ws_acme";
const SEED_CANARIES = ["canary-api-db-6e2f91c4-never-print", "btn_owner-acme-0000000000000000"];

let h: PagesHarness;
let owner: string;
let stranger: string;

beforeAll(async () => {
  h = await createPagesHarness();
  owner = await h.signIn("owner@acme.test");
  stranger = await h.signIn("stranger@other.test");
});
afterAll(async () => h?.close());

/** Starts a task through the new-task form; returns its page path and the form's fields. */
async function startFromForm(prompt: string, extra: Record<string, string> = {}) {
  const form = await h.page("GET", newTaskPath(WS), { cookie: owner });
  expect(form.status).toBe(200);
  const fields = {
    [CSRF_FIELD]: csrfOf(form.text),
    key: inputValue(form.text, "key"),
    prompt,
    title: "",
    repo: "",
    ...extra,
  };
  const answer = await h.page("POST", tasksPath(WS), { cookie: owner, form: fields });
  expect(answer.status, answer.text).toBe(303);
  const location = answer.headers.get("location")!;
  return { path: location.split("?")[0]!, fields };
}

const updatesOf = async (path: string, after = "") =>
  JSON.parse(
    (await h.page("GET", `${path}/updates${after ? `?after=${after}` : ""}`, { cookie: owner })).text,
  ) as {
    entries: string;
    last: string | null;
    status: string;
    actions: string;
  };

describe("dashboard task pages", () => {
  it("GET /dashboard sends a member to their first workspace's tasks (by name), and one with none to ask for an invitation", async () => {
    const home = await h.page("GET", DASHBOARD_HOME, { cookie: owner });
    expect(home.status).toBe(303);
    expect(home.headers.get("location")).toBe(tasksPath(WS));
    const lonely = await upsertUser(h.db, { email: "lonely@nowhere.test" }, new Date());
    const page = await h.page("GET", DASHBOARD_HOME, {
      cookie: (await startWebSession(h.app.deps, lonely.id, false)).cookie,
    });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Ask a workspace's owner or admin to invite lonely@nowhere.test");
  });

  it("starting a task from the form twice with the same hidden key starts one task, whose page shows the agent's reply", async () => {
    const { path, fields } = await startFromForm("Fix <b>the</b> login bug");
    const again = await h.page("POST", tasksPath(WS), { cookie: owner, form: fields });
    expect(again.headers.get("location")?.split("?")[0]).toBe(path);
    const count = (await h.db.get("SELECT count(*) AS n FROM tasks WHERE workspace_id = ? AND title = ?", [
      WS,
      "Fix <b>the</b> login bug",
    ])) as { n: number };
    expect(count.n).toBe(1);
    const page = await pollUntil(
      () => h.page("GET", path, { cookie: owner }),
      (p) => p.text.includes("Done: Fix"),
      { timeoutMs: 10_000 },
    );
    expect(page.text).toContain("Done: Fix &lt;b&gt;the&lt;/b&gt; login bug");
    expect(page.text).not.toContain("<b>the</b>");
    expect(page.text).toMatch(/<span class="who">Agent<\/span>/);
    expect(page.text).toMatch(/<span class="who">User<\/span>/);
    expect(page.text).toMatch(/<time datetime="[^"]+" title="[^"]+">/);
  });

  it("a follow-up sent twice with the same key is sent once; the updates answer only what came after", async () => {
    const { path } = await startFromForm("first words");
    await pollUntil(
      () => updatesOf(path),
      (u) => u.entries.includes("Done: first words"),
      { timeoutMs: 10_000 },
    );
    const page = await h.page("GET", path, { cookie: owner });
    const before = await updatesOf(path);
    const form = { [CSRF_FIELD]: csrfOf(page.text), key: inputValue(page.text, "key"), text: "and more" };
    const [taskId] = path.split("/").slice(-1);
    for (let i = 0; i < 2; i++) {
      const sent = await h.page("POST", taskMessagesPath(WS, taskId!), { cookie: owner, form });
      expect(sent.status).toBe(303);
    }
    const after = await pollUntil(
      () => updatesOf(path, before.last!),
      (u) => u.entries.includes("Done: and more"),
      { timeoutMs: 10_000 },
    );
    expect(after.entries.match(/>and more</g)).toHaveLength(1);
    expect(after.entries).not.toContain("first words");
  });

  it("Stop ends a running turn (a scripted rule that takes 10 minutes), and the page says the turn is stopped", async () => {
    const { path } = await startFromForm("slow work please");
    const taskId = path.split("/").at(-1)!;
    await pollUntil(
      () => updatesOf(path),
      (u) => u.actions.includes("Stop this turn"),
      { timeoutMs: 10_000 },
    );
    const page = await h.page("GET", path, { cookie: owner });
    const stopped = await h.page("POST", taskStopPath(WS, taskId), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrfOf(page.text) },
    });
    expect(stopped.status).toBe(303);
    const after = await h.page("GET", stopped.headers.get("location")!, { cookie: owner });
    expect(after.text).toContain("The turn is stopped.");
    expect(after.text).toContain('<span class="badge cancelled">Stopped</span>');
    const again = await h.page("POST", taskStopPath(WS, taskId), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrfOf(page.text) },
    });
    expect(again.status).toBe(409);
    expect(again.text).toContain("the task has no running or queued turn; send a follow-up to start one");
  });

  it("every task route answers 404 to a member of another workspace, as the API does", async () => {
    const { path } = await startFromForm("private work");
    const taskId = path.split("/").at(-1)!;
    const strangerPage = await h.page("GET", newTaskPath("ws_aaa_other"), { cookie: stranger });
    const csrf = csrfOf(strangerPage.text);
    const form = { [CSRF_FIELD]: csrf, key: "k-1", text: "hi", prompt: "hi" };
    const answers = [
      await h.page("GET", tasksPath(WS), { cookie: stranger }),
      await h.page("GET", newTaskPath(WS), { cookie: stranger }),
      await h.page("GET", taskPath(WS, taskId), { cookie: stranger }),
      await h.page("GET", taskUpdatesPath(WS, taskId), { cookie: stranger }),
      await h.page("POST", tasksPath(WS), { cookie: stranger, form }),
      await h.page("POST", taskMessagesPath(WS, taskId), { cookie: stranger, form }),
      await h.page("POST", taskStopPath(WS, taskId), { cookie: stranger, form }),
      // The task id in the stranger's own workspace is not theirs either.
      await h.page("GET", taskPath("ws_aaa_other", taskId), { cookie: stranger }),
    ];
    expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404, 404, 404, 404]);
    expect(answers.at(-1)!.text).toContain("no such task in this workspace");
  });

  it.each([
    ["start", () => tasksPath(WS)],
    ["follow up", () => taskMessagesPath(WS, "task_x")],
    ["stop", () => taskStopPath(WS, "task_x")],
  ])(
    "a %s form without the session's CSRF token is refused with 403 and changes nothing",
    async (_, path) => {
      // Members' messages only: replies of turns earlier tests started may still arrive meanwhile (later on PG).
      const before = (await h.db.get("SELECT count(*) AS n FROM task_messages WHERE role = 'user'")) as {
        n: number;
      };
      const refused = await h.page("POST", path(), {
        cookie: owner,
        form: { [CSRF_FIELD]: "forged", prompt: "x", text: "x", key: "csrf-k" },
      });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain("Reload the page and try again");
      expect(await h.db.get("SELECT count(*) AS n FROM task_messages WHERE role = 'user'")).toEqual(before);
    },
  );

  it.each([
    ["ws_broke", 402, "billing is inactive for this workspace", "Open billing"],
    ["ws_nohost", 409, "the workspace is not connected to the code host", "Open settings"],
  ])(
    "a refused start in %s answers %i with the reason as written, where to go, and the typed text kept",
    async (ws, status, reason, next) => {
      const dev = await h.signIn("dev@acme.test");
      const form = await h.page("GET", newTaskPath(ws), { cookie: dev });
      const refused = await h.page("POST", tasksPath(ws), {
        cookie: dev,
        form: {
          [CSRF_FIELD]: csrfOf(form.text),
          key: "refused-1",
          prompt: "keep <this> text",
          title: "",
          repo: "",
        },
      });
      expect(refused.status).toBe(status);
      expect(refused.text).toContain(reason);
      expect(refused.text).toContain(`>${next}</a>`);
      expect(refused.text).toContain(">keep &lt;this&gt; text</textarea>");
    },
  );

  it("a start form over the body limit is refused with 413 saying what to do, and starts nothing", async () => {
    const before = await h.db.get("SELECT count(*) AS n FROM tasks");
    const form = await h.page("GET", newTaskPath(WS), { cookie: owner });
    const refused = await h.page("POST", tasksPath(WS), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrfOf(form.text), key: "too-big", prompt: "x".repeat(1_400_000) },
    });
    expect(refused.status).toBe(413);
    expect(refused.text).toContain("shorten what you typed");
    expect(await h.db.get("SELECT count(*) AS n FROM tasks")).toEqual(before);
  });

  it("the repository picker lists the connected repositories and the agent's choice, never a disconnected one", async () => {
    const form = await h.page("GET", newTaskPath(WS), { cookie: owner });
    expect(form.text).toContain('<option value="" selected>Let the agent choose</option>');
    expect(form.text).toContain('<option value="acme/api">acme/api</option>');
    expect(form.text).toContain('<option value="acme/web">acme/web</option>');
    expect(form.text).not.toContain("acme/old");
  });

  it("the list filters by status and pages with the API's cursor, most recently active first", async () => {
    const base = Date.parse("2020-01-01T00:00:00Z");
    const ownerId = (await h.user("owner@acme.test")).id;
    for (let i = 0; i < 55; i++)
      await insertTask(
        h.db,
        {
          id: `task_${String(i).padStart(32, "0")}`,
          workspace_id: WS,
          source: "api",
          status: "failed",
          title: `old ${i}`,
          repo: null,
          created_by: ownerId,
          ticket_id: null,
        },
        new Date(base + i * 1000),
      );
    const failed = await h.page("GET", `${tasksPath(WS)}?status=failed`, { cookie: owner });
    expect(failed.text).toContain('<option value="failed" selected>Failed</option>');
    expect(failed.text.indexOf(">old 54<")).toBeLessThan(failed.text.indexOf(">old 53<"));
    expect(failed.text).not.toContain(">old 4<");
    const next = /href="([^"]+)" rel="next"/.exec(failed.text)![1]!.replaceAll("&amp;", "&");
    const second = await h.page("GET", next, { cookie: owner });
    expect(second.text).toContain(">old 4<");
    expect(second.text).toContain(">First page</a>");
    expect(second.text).not.toContain(">old 54<");
  });

  it("a long conversation's page shows its latest 200 entries and links to earlier ones by the API's entry cursor (issue 36)", async () => {
    const id = `task_${"e".repeat(32)}`;
    await insertTask(
      h.db,
      {
        id,
        workspace_id: WS,
        source: "api",
        status: "replied",
        title: "a long talk",
        repo: null,
        created_by: (await h.user("owner@acme.test")).id,
        ticket_id: null,
      },
      new Date(),
    );
    // Written straight to the store: 450 turns through the scripted agent would take minutes and test nothing more.
    const base = Date.parse("2021-01-01T00:00:00Z");
    const entryId = (i: number) => `msg_long_${String(i).padStart(4, "0")}`;
    for (let i = 0; i < 450; i++)
      await h.db.run(
        "INSERT INTO task_messages (id, task_id, role, kind, body, created_at) VALUES (?, ?, 'agent', 'response', ?, ?)",
        [entryId(i), id, `entry number ${i}.`, new Date(base + i * 1000).toISOString()],
      );
    const shown = (text: string) => [...text.matchAll(/data-entry="([^"]+)"/g)].map((m) => m[1]!);
    const earlierOf = (text: string) =>
      /<p class="hint" id="earlier-entries"><a href="([^"]+)" rel="prev">Earlier entries<\/a>/
        .exec(text)?.[1]
        ?.replaceAll("&amp;", "&");

    const latest = await h.page("GET", taskPath(WS, id), { cookie: owner });
    expect(latest.status).toBe(200);
    expect(shown(latest.text)).toEqual(Array.from({ length: 200 }, (_, i) => entryId(250 + i)));
    expect(latest.text).toContain(`data-last="${entryId(449)}"`);
    // The link's cursor is an entry's id, as GET .../messages?after= takes: the first entry shown.
    expect(earlierOf(latest.text)).toBe(`${taskPath(WS, id)}?before=${entryId(250)}#conversation-heading`);

    const middle = await h.page("GET", earlierOf(latest.text)!.split("#")[0]!, { cookie: owner });
    expect(middle.status).toBe(200);
    expect(shown(middle.text)).toEqual(Array.from({ length: 200 }, (_, i) => entryId(50 + i)));
    // A page of the past is not polled: new entries belong after the latest one, not after these.
    expect(middle.text).not.toContain("data-updates=");
    expect(middle.text).toContain(`<a href="${taskPath(WS, id)}#conversation-heading">Latest entries</a>`);

    const first = await h.page("GET", earlierOf(middle.text)!.split("#")[0]!, { cookie: owner });
    expect(shown(first.text)).toEqual(Array.from({ length: 50 }, (_, i) => entryId(i)));
    expect(earlierOf(first.text)).toBeUndefined();

    // A cursor that is not an entry of this task is refused as the API refuses it; a member of another
    // workspace gets 404 whatever the cursor.
    const wrong = await h.page("GET", `${taskPath(WS, id)}?before=msg_nowhere`, { cookie: owner });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain("before is not an entry of this task");
    const other = await h.page("GET", `${taskPath(WS, id)}?before=${entryId(250)}`, { cookie: stranger });
    expect(other.status).toBe(404);
  });

  it("dashboard pages allow our own script and polling; the script is served from our origin", async () => {
    const list = await h.page("GET", tasksPath(WS), { cookie: owner });
    expect(list.headers.get("content-security-policy")).toContain("script-src 'self'; connect-src 'self'");
    const script = await h.page("GET", DASHBOARD_SCRIPT_PATH);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect(script.text).toBe(DASHBOARD_SCRIPT);
  });

  it("an issue's task page says its conversation stays on the issue (the API's not_an_api_task) and offers no follow-up", async () => {
    const id = `task_${"f".repeat(32)}`;
    await insertTask(
      h.db,
      {
        id,
        workspace_id: WS,
        source: "tracker",
        status: "replied",
        title: "ENG-2 Add rate limiting docs",
        repo: "acme/api",
        created_by: (await h.user("dev@acme.test")).id,
        ticket_id: null,
      },
      new Date(),
    );
    const page = await h.page("GET", taskPath(WS, id), { cookie: owner });
    expect(page.status).toBe(200);
    expect(page.text).toContain("this task started from the tracker; its conversation stays on the issue");
    expect(page.text).not.toContain("<textarea");
    const updates = JSON.parse((await h.page("GET", taskUpdatesPath(WS, id), { cookie: owner })).text);
    expect(updates.entries).toBe("");
  });

  it("queued tasks show their place in the workspace's queue (plan team: 2 running, then a queue)", async () => {
    const started: string[] = [];
    for (const n of [1, 2, 3, 4]) started.push((await startFromForm(`slow queue job ${n}`)).path);
    const list = await h.page("GET", tasksPath(WS), { cookie: owner });
    expect(list.text).toContain("Queued: 1st of 2 in line");
    expect(list.text).toContain("Queued: 2nd of 2 in line");
    const last = await h.page("GET", started.at(-1)!, { cookie: owner });
    expect(last.text).toContain("Queued: 2nd of 2 in line");
    expect(last.text).toContain("Stop this turn");
  });

  it("no seeded secret or token ever appears in a dashboard answer", () => {
    for (const answer of h.seen)
      for (const canary of SEED_CANARIES) expect(answer.text).not.toContain(canary);
  });
});
