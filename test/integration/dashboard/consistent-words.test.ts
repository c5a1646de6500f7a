// The dashboard's words agree with the task's state (issue 37 A.10), in process: the real public listener over a
// real SQLite file (fixtures/seeds/api.json, the scripted agent: "ask me" makes it ask a question, "slow" keeps a
// turn running), a signed-in browser played by a session cookie. An agent's question is not "Replied" but waits
// for an answer, on the task page, the list and the polling answer; a queued task is not "started"; the limit's
// refusal does not tell a dashboard user about "the API, client or MCP".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  newTaskPath,
  taskMessagesPath,
  tasksPath,
  taskUpdatesPath,
} from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { CSRF_FIELD } from "../../../src/server/surfaces/pages/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { createPagesHarness, csrfOf, inputValue, type PagesHarness } from "../pages/harness.js";

const WS = "ws_acme";
let h: PagesHarness;
let owner: string;

beforeAll(async () => {
  h = await createPagesHarness();
  owner = await h.signIn("owner@acme.test");
});
afterAll(async () => h?.close());

/** Posts the new-task form as a browser does; returns the answer (a 303 to the task, or the refused form). */
async function startFromForm(prompt: string) {
  const form = await h.page("GET", newTaskPath(WS), { cookie: owner });
  return h.page("POST", tasksPath(WS), {
    cookie: owner,
    form: { [CSRF_FIELD]: csrfOf(form.text), key: inputValue(form.text, "key"), prompt, title: "", repo: "" },
  });
}

const statusOf = (page: string) => /<dd id="task-status">(.*?)<\/dd>/s.exec(page)?.[1] ?? "";

describe("the dashboard says what a task waits for", () => {
  it("an agent's question leaves the task waiting for an answer (not 'Replied') on its page, the list and the polling answer, until it is answered", async () => {
    const started = await startFromForm("please ask me which file to change");
    expect(started.status).toBe(303);
    const path = started.headers.get("location")!.split("?")[0]!;
    const page = await pollUntil(
      () => h.page("GET", path, { cookie: owner }),
      (p) => p.text.includes("Which file should I change"),
      { timeoutMs: 10_000 },
    );
    expect(statusOf(page.text)).toContain("Waiting for an answer");
    expect(statusOf(page.text)).not.toContain("Replied");
    const list = await h.page("GET", tasksPath(WS), { cookie: owner });
    expect(list.text).toContain('<span class="badge replied">Waiting for an answer</span>');
    const taskId = path.split("/").at(-1)!;
    const updates = JSON.parse((await h.page("GET", taskUpdatesPath(WS, taskId), { cookie: owner })).text);
    expect(updates.status).toContain("Waiting for an answer");

    const sent = await h.page("POST", taskMessagesPath(WS, taskId), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrfOf(page.text), key: inputValue(page.text, "key"), text: "src/a.ts, thanks" },
    });
    expect(sent.status).toBe(303);
    const answered = await pollUntil(
      () => h.page("GET", path, { cookie: owner }),
      (p) => statusOf(p.text).includes("Replied"),
      { timeoutMs: 10_000 },
    );
    expect(statusOf(answered.text)).not.toContain("Waiting for an answer");
  });

  it("a new task that waits for a plan slot says it is queued, not started (plan team: 2 run at once)", async () => {
    const notices: string[] = [];
    for (const n of [1, 2, 3]) {
      const started = await startFromForm(`slow job ${n}`);
      expect(started.status).toBe(303);
      const page = await h.page("GET", started.headers.get("location")!, { cookie: owner });
      notices.push(/<p class="notice" role="status">(.*?)<\/p>/s.exec(page.text)?.[1] ?? "");
    }
    expect(notices[0]).toMatch(/^The task is started\./);
    expect(notices[2]).toMatch(
      /^The task is saved and queued: it starts when the workspace has a free slot\./,
    );
    expect(notices[2]).not.toContain("started");
  });

  it("the limit's refusal speaks of the user's own tasks, not of 'the API, client or MCP' they never used", async () => {
    // Three slow tasks above, two more here: five of the owner's open; the sixth is refused.
    for (const n of [4, 5]) expect((await startFromForm(`slow job ${n}`)).status).toBe(303);
    const refused = await startFromForm("slow job 6");
    expect(refused.status).toBe(429);
    expect(refused.text).toContain("you already have 5 tasks of your own starting, running or queued here");
    expect(refused.text).not.toMatch(/API, client or MCP/);
  });
});
