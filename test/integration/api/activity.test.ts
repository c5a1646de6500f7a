// What the agent did, kept apart from the conversation (issue 34, point 4), through the real service: the real
// app, store, turn runtime and engine, with an agent the test answers (gated-agent.ts). The agent is faked because
// the activity is whatever an adapter returns in its TurnResult: the ACP adapter's own tests drive a real ACP
// agent, and this suite checks what the service does with the records (keeps them per turn, serves them on
// GET .../activity to members only, shows them on the dashboard, never posts them to the conversation).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActivityRecord, TurnResult } from "../../../src/server/adapters/agents/port.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { taskPath } from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { createGatedAgent, reply } from "./gated-agent.js";
import { type ApiHarness, createApiHarness, freshToken, TOKENS, until, waitForStatus } from "./harness.js";

const WS = "ws_acme";
const AT = "2026-11-28T10:00:00.000Z";
const MARK = "only-in-the-activity-5d1c";

let h: ApiHarness;
const agent = createGatedAgent();
beforeAll(async () => {
  h = await createApiHarness({ tasks: { agent } });
});
afterAll(async () => {
  await h.close();
});

const turnRecords = (n: number): ActivityRecord[] => [
  {
    at: AT,
    kind: "tool_call",
    data: { toolCallId: `c${n}`, title: `Edit README.md ${MARK}`, kind: "edit", status: "in_progress" },
  },
  { at: AT, kind: "tool_call_update", data: { toolCallId: `c${n}`, status: "completed" } },
  {
    at: AT,
    kind: "plan",
    data: { entries: [{ content: `Step of turn ${n}`, status: "completed", priority: "medium" }] },
  },
  { at: AT, kind: "agent_message_chunk", data: { text: `Turn ${n}: *edited* the README` } },
];

async function runTurn(taskId: string, result: TurnResult, statuses: string[]): Promise<void> {
  const turn = await until(() => agent.waiting(taskId), `a turn of ${taskId} to reach the agent`);
  turn.answer(result);
  await waitForStatus(h, taskId, statuses);
}

/** A task of three turns: a reply, an agent error and a pause for access, each with its activity. */
async function taskWithThreeTurns(token: string): Promise<string> {
  const started = await h.call("POST", API_PATHS.tasks(WS), { token, body: { prompt: "fix the README" } });
  expect(started.status).toBe(202);
  const taskId = started.body.task.id as string;
  await runTurn(taskId, { ...reply("Fixed the README."), activity: turnRecords(1) }, ["replied"]);
  await h.call("POST", API_PATHS.messages(WS, taskId), { token, body: { text: "and the docs" } });
  await runTurn(
    taskId,
    { kind: "error", code: "agent_failed", reason: "it crashed", activity: turnRecords(2) },
    ["failed"],
  );
  await h.call("POST", API_PATHS.messages(WS, taskId), { token, body: { text: "try again" } });
  await runTurn(taskId, { kind: "needs_access", reason: "an API key", activity: turnRecords(3) }, ["paused"]);
  return taskId;
}

let taskId: string;
let token: string;

describe("GET /v1/workspaces/{ws}/tasks/{id}/activity", () => {
  beforeAll(async () => {
    token = await freshToken(h);
    taskId = await taskWithThreeTurns(token);
  });

  it("returns each turn's records in the turns' order, whatever the turn's result", async () => {
    const answer = await h.call("GET", API_PATHS.activity(WS, taskId), { token });
    expect(answer.status).toBe(200);
    const turns = answer.body.turns as {
      turnId: string;
      number: number;
      state: string;
      records: ActivityRecord[];
    }[];
    expect(turns.map((t) => [t.number, t.state])).toEqual([
      [1, "succeeded"],
      [2, "failed"],
      [3, "paused"],
    ]);
    expect(turns.map((t) => t.records)).toEqual([turnRecords(1), turnRecords(2), turnRecords(3)]);
    expect(answer.body.next).toBeNull();
    const rows = await h.db.all<{ turn_id: string }>(
      "SELECT a.turn_id FROM task_turn_activity a JOIN task_turns t ON t.id = a.turn_id WHERE a.task_id = ? ORDER BY t.seq",
      [taskId],
    );
    expect(rows.map((r) => r.turn_id)).toEqual(turns.map((t) => t.turnId));
  });

  it("pages with limit and after, as the conversation does", async () => {
    const first = await h.call("GET", `${API_PATHS.activity(WS, taskId)}?limit=2`, { token });
    expect(first.body.turns).toHaveLength(2);
    const second = await h.call("GET", `${API_PATHS.activity(WS, taskId)}?limit=2&after=${first.body.next}`, {
      token,
    });
    expect(second.body.turns.map((t: { number: number }) => t.number)).toEqual([3]);
    expect(second.body.next).toBeNull();
    const bad = await h.call("GET", `${API_PATHS.activity(WS, taskId)}?after=turn_nope`, { token });
    expect([bad.status, bad.body.error]).toEqual([400, "invalid_cursor"]);
    const tooMany = await h.call("GET", `${API_PATHS.activity(WS, taskId)}?limit=500`, { token });
    expect([tooMany.status, tooMany.body.error]).toEqual([400, "invalid_limit"]);
  });

  it("is never posted to the conversation", async () => {
    const messages = await h.call("GET", API_PATHS.messages(WS, taskId), { token });
    expect(JSON.stringify(messages.body)).not.toContain(MARK);
    expect(messages.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "agent",
      "user",
      "platform",
      "user",
      "platform",
    ]);
  });

  it("answers as the conversation route does to others: 401 without a token, 404 to another workspace's member", async () => {
    const routes = [API_PATHS.activity, API_PATHS.messages];
    for (const route of routes) {
      const none = await h.call("GET", route(WS, taskId), { token: null });
      const stranger = await h.call("GET", route(WS, taskId), { token: TOKENS.stranger });
      const strangersOwn = await h.call("GET", route("ws_aaa_other", taskId), { token: TOKENS.stranger });
      expect([none.status, stranger.status, strangersOwn.status], route(WS, taskId)).toEqual([401, 404, 404]);
      expect(strangersOwn.body.error).toBe("not_found");
    }
  });
});

describe("the dashboard's task page", () => {
  const page = async (email: string, path: string) => {
    const user = (await findUserByEmail(h.db, email))!;
    const { cookie } = await startWebSession(h.app.deps, user.id, false);
    const response = await h.app.listeners.public.request(path, { headers: { cookie } });
    return { status: response.status, text: await response.text() };
  };

  it("shows what the agent did per turn under its heading, tool calls by label, plan entries and messages", async () => {
    const { status, text } = await page("dev@acme.test", taskPath(WS, taskId));
    expect(status).toBe(200);
    const activity = text.slice(text.indexOf('<h2 id="activity-heading">What the agent did</h2>'));
    expect(activity.length).toBeLessThan(text.length);
    expect(activity.match(/<details class="turn-activity"/g)).toHaveLength(3);
    expect(activity).toContain("Turn 1, ended with a reply · 4 records");
    expect(activity).toContain("Turn 2, failed · 4 records");
    expect(activity).toMatch(
      /<details class="turn-activity" id="activity-turn_[^"]+" open>\n<summary>Turn 3, paused/,
    );
    expect(activity).toContain(
      `<span class="badge">Edit</span> <span class="tool-title">Edit README.md ${MARK}</span> · <span class="status completed">Completed</span>`,
    );
    expect(activity).toContain('<span class="badge">Completed</span> Step of turn 2');
    expect(activity).toContain("<p>Turn 3: <em>edited</em> the README</p>");
    // The conversation above it holds none of it.
    expect(text.slice(0, text.indexOf('id="activity-heading"'))).not.toContain(MARK);
  });

  it("is 404 to another workspace's member, as the API is", async () => {
    const { status } = await page("stranger@other.test", taskPath(WS, taskId));
    expect(status).toBe(404);
  });
});
