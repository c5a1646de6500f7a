// Reference section 4's page sizes where they need more than a handful of rows: the task list's default of 50
// (limit 1 to 100) and the conversation's default of 100 (limit 1 to 200), each page followed to the end with no
// entry twice and none missing. Everything is made through the API with the scripted agent (quick replies).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, waitForStatus } from "./harness.js";

const SEED = {
  agent: { rules: [{ reply: "ok" }] },
  workspaces: [
    {
      id: "ws_pages",
      name: "Pages",
      plan: { concurrency: 5, queueSize: 100 },
      members: [{ email: "pager@pages.test", role: "member" }],
      repositories: [{ repository: "pages/app" }],
    },
  ],
};
const TASKS = 53;
const TURNS = 52; // a conversation of 104 entries: a user message and the agent's reply per turn

let h: ApiHarness;
let token: string;
const taskIds: string[] = [];
let talkative: string;
beforeAll(async () => {
  h = await createApiHarness({ seed: SEED });
  token = await freshToken(h, "pager@pages.test");
  for (let i = 0; i < TASKS; i++) {
    const answer = await h.call("POST", API_PATHS.tasks("ws_pages"), {
      token,
      body: { prompt: `task ${i}` },
    });
    expect(answer.status).toBe(202);
    taskIds.push(answer.body.task.id);
    await waitForStatus(h, answer.body.task.id, ["replied"]);
  }
  talkative = taskIds[0]!;
  for (let i = 1; i < TURNS; i++) {
    const sent = await h.call("POST", API_PATHS.messages("ws_pages", talkative), {
      token,
      body: { text: `more ${i}` },
    });
    expect(sent.status).toBe(202);
    await waitForStatus(h, talkative, ["replied"]);
  }
}, 120_000);
afterAll(async () => {
  await h.close();
});

describe("page sizes", () => {
  it("tasks: limit defaults to 50; nextCursor leads to the rest", async () => {
    const first = await h.call("GET", API_PATHS.tasks("ws_pages"), { token });
    expect(first.body.tasks).toHaveLength(50);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const rest = await h.call(
      "GET",
      `${API_PATHS.tasks("ws_pages")}?cursor=${encodeURIComponent(first.body.nextCursor)}`,
      { token },
    );
    expect(rest.body.tasks).toHaveLength(TASKS - 50);
    expect(rest.body.nextCursor).toBeNull();
    const ids = [...first.body.tasks, ...rest.body.tasks].map((t: { id: string }) => t.id);
    expect(new Set(ids).size).toBe(TASKS);
    expect(ids.sort()).toEqual([...taskIds].sort());
  });

  it("tasks: limit 100 is the most; one page holds them all", async () => {
    const all = await h.call("GET", `${API_PATHS.tasks("ws_pages")}?limit=100`, { token });
    expect(all.body.tasks).toHaveLength(TASKS);
    expect(all.body.nextCursor).toBeNull();
  });

  it("messages: limit defaults to 100; next leads to the rest", async () => {
    const first = await h.call("GET", API_PATHS.messages("ws_pages", talkative), { token });
    expect(first.body.messages).toHaveLength(100);
    expect(first.body.next).toBe(first.body.messages[99].id);
    const rest = await h.call(
      "GET",
      `${API_PATHS.messages("ws_pages", talkative)}?after=${first.body.next}`,
      { token },
    );
    expect(rest.body.messages).toHaveLength(TURNS * 2 - 100);
    expect(rest.body.next).toBeNull();
    const bodies = [...first.body.messages, ...rest.body.messages].map((m: { body: string }) => m.body);
    expect(bodies.filter((b) => b !== "ok")).toEqual([
      "task 0",
      ...Array.from({ length: TURNS - 1 }, (_, i) => `more ${i + 1}`),
    ]);
  });

  it("messages: limit 200 is the most; one page holds them all", async () => {
    const all = await h.call("GET", `${API_PATHS.messages("ws_pages", talkative)}?limit=200`, { token });
    expect(all.body.messages).toHaveLength(TURNS * 2);
    expect(all.body.next).toBeNull();
  });
});
