// The seven tools through the public listener's handler (modern era): each answers the same JSON as its HTTP
// route, as text and as structured content; every refusal is a tool execution error (`isError: true`) whose
// text names the code and says what to fix (reference section 4 "MCP endpoint"); the budget of 120 calls a
// minute per token covers every MCP call (section 8 "MCP rate"). The harness clock moves the window on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { MCP_GATE_ERRORS, MCP_LIMITS } from "../../../src/server/surfaces/mcp/wire.js";
import {
  type ApiHarness,
  CANARIES,
  createApiHarness,
  freshToken,
  until,
  waitForStatus,
} from "../api/harness.js";
import { callTool, legacy, modern, rpc, tool } from "./rpc.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  for (const seen of h.seen) for (const canary of CANARIES) expect(seen.text).not.toContain(canary);
  await h.close();
});

describe("tools answer the HTTP routes' JSON", () => {
  it("whoami is GET /v1/me", async () => {
    const mcp = await tool(h, "whoami");
    const http = await h.call("GET", API_PATHS.me);
    expect(mcp.isError).toBe(false);
    expect(JSON.parse(mcp.text)).toEqual(http.body);
    expect(mcp.result.structuredContent).toEqual(http.body);
  });

  it("start_task, get_task, list_tasks, get_messages, follow_up and stop_task", async () => {
    const started = await tool(h, "start_task", {
      workspace_id: "ws_acme",
      prompt: "slow: rename the module",
      idempotency_key: "mcp-start-1",
    });
    expect(started.isError).toBe(false);
    const { task, messageId } = started.result.structuredContent;
    expect(task).toMatchObject({ status: "pending", source: "api" });
    expect(messageId).toBe("mcp-start-1");
    // The same key again returns the first answer and starts nothing more.
    const again = await tool(h, "start_task", {
      workspace_id: "ws_acme",
      prompt: "slow: rename the module",
      idempotency_key: "mcp-start-1",
    });
    expect(again.result.structuredContent.task.id).toBe(task.id);

    await waitForStatus(h, task.id, ["implementing"]);
    const got = await tool(h, "get_task", { workspace_id: "ws_acme", task_id: task.id });
    expect(got.result.structuredContent).toEqual(
      (await h.call("GET", API_PATHS.task("ws_acme", task.id))).body,
    );
    const listed = await tool(h, "list_tasks", { workspace_id: "ws_acme", limit: 2 });
    expect(listed.result.structuredContent).toEqual(
      (await h.call("GET", `${API_PATHS.tasks("ws_acme")}?limit=2`)).body,
    );
    const messages = await tool(h, "get_messages", { workspace_id: "ws_acme", task_id: task.id });
    expect(messages.result.structuredContent).toEqual(
      (await h.call("GET", API_PATHS.messages("ws_acme", task.id))).body,
    );
    const followed = await tool(h, "follow_up", {
      workspace_id: "ws_acme",
      task_id: task.id,
      text: "also docs",
    });
    expect(followed.result.structuredContent).toEqual({ messageId: expect.any(String) });
    const stopped = await tool(h, "stop_task", { workspace_id: "ws_acme", task_id: task.id });
    expect(stopped.result.structuredContent).toEqual({ accepted: true });
  });
});

describe("a refused call is a tool execution error that says what to fix", () => {
  let apiTask: string;
  let trackerTask: string;
  beforeAll(async () => {
    apiTask = (await tool(h, "start_task", { workspace_id: "ws_acme", prompt: "quick fix" })).result
      .structuredContent.task.id;
    await waitForStatus(h, apiTask, ["replied"]);
    const delegated = await h.call("POST", API_PATHS.delegate("ws_acme"), {
      body: { source: "tracker", id: "ENG-2" },
    });
    expect(delegated.status).toBe(202);
    trackerTask = await until(
      async () =>
        ((await h.db.get("SELECT id FROM tasks WHERE source = 'tracker'")) as { id: string } | undefined)?.id,
      "the delegated tracker task",
    );
  });

  const CASES: [string, string, () => Record<string, unknown>, RegExp][] = [
    [
      "not_found",
      "get_task",
      () => ({ workspace_id: "ws_other", task_id: "t" }),
      /not_found: no such workspace/,
    ],
    [
      "not_found",
      "get_task",
      () => ({ workspace_id: "ws_acme", task_id: "tsk_none" }),
      /not_found: no such task/,
    ],
    ["invalid_prompt", "start_task", () => ({ workspace_id: "ws_acme", prompt: "   " }), /invalid_prompt: /],
    [
      "invalid_title",
      "start_task",
      () => ({ workspace_id: "ws_acme", prompt: "p", title: "" }),
      /invalid_title/,
    ],
    [
      "invalid_repo",
      "start_task",
      () => ({ workspace_id: "ws_acme", prompt: "p", repo: "nope" }),
      /invalid_repo/,
    ],
    [
      "invalid_repo (not connected)",
      "start_task",
      () => ({ workspace_id: "ws_acme", prompt: "p", repo: "acme/unknown" }),
      /invalid_repo: acme\/unknown is not connected/,
    ],
    [
      "invalid_idempotency_key",
      "start_task",
      () => ({ workspace_id: "ws_acme", prompt: "p", idempotency_key: "has space" }),
      /invalid_idempotency_key: idempotency_key must be 1 to 128/,
    ],
    ["invalid_status", "list_tasks", () => ({ workspace_id: "ws_acme", status: "sleepy" }), /invalid_status/],
    ["invalid_cursor", "list_tasks", () => ({ workspace_id: "ws_acme", cursor: "%%%" }), /invalid_cursor/],
    [
      "invalid_cursor (after)",
      "get_messages",
      () => ({ workspace_id: "ws_acme", task_id: apiTask, after: "msg_none" }),
      /invalid_cursor: after is not an entry/,
    ],
    [
      "limit out of range",
      "list_tasks",
      () => ({ workspace_id: "ws_acme", limit: 101 }),
      /limit must be a whole number from 1 to 100/,
    ],
    [
      "limit not a number",
      "get_messages",
      () => ({ workspace_id: "ws_acme", task_id: apiTask, limit: "5" }),
      /limit must be a whole number from 1 to 200/,
    ],
    ["a missing argument", "get_task", () => ({ workspace_id: "ws_acme" }), /task_id is required/],
    [
      "not_running",
      "stop_task",
      () => ({ workspace_id: "ws_acme", task_id: apiTask }),
      /not_running: the task has no running or queued turn/,
    ],
    [
      "idempotency_conflict",
      "follow_up",
      () => ({
        workspace_id: "ws_acme",
        task_id: apiTask,
        text: "other text",
        idempotency_key: "mcp-start-1",
      }),
      /idempotency_conflict/,
    ],
  ];

  it.each(CASES)("%s (%s)", async (_code, name, args, message) => {
    const answer = await tool(h, name, args());
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(message);
    expect(answer.result.structuredContent).toBeUndefined();
  });

  it("not_an_api_task: follow_up on a task started elsewhere", async () => {
    const answer = await tool(h, "follow_up", { workspace_id: "ws_acme", task_id: trackerTask, text: "hi" });
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/^not_an_api_task: /);
  });
});

describe("one budget of 120 calls a minute per token", () => {
  it("counts every MCP call of both eras; over it, 429 with Retry-After and a JSON-RPC error; the window moves on", async () => {
    const token = await freshToken(h);
    const messages = [
      callTool("whoami"),
      modern("tools/list"),
      legacy("tools/list"),
      callTool("get_messages", {}),
    ];
    for (let i = 0; i < MCP_LIMITS.callsPerMinute; i++) {
      const answer = await rpc(h, messages[i % messages.length], { token });
      expect(answer.status, `call ${i + 1}`).toBe(200);
    }
    const over = await rpc(h, callTool("whoami"), { token });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(over.body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: MCP_GATE_ERRORS.rateLimited },
    });
    // Another token has its own budget, and the API's budgets are apart from it.
    expect((await rpc(h, callTool("whoami"), { token: await freshToken(h) })).status).toBe(200);
    expect((await h.call("GET", API_PATHS.me, { token })).status).toBe(200);
    h.clock.offsetMs += 60_000;
    expect((await rpc(h, callTool("whoami"), { token })).status).toBe(200);
  });
});

describe("a JSON-RPC batch costs a call per message (issue 35 A.3)", () => {
  const batchOf = (count: number) => Array.from({ length: count }, () => legacy("tools/list"));
  const inVersion = (version: string | null) => ({ headers: { "mcp-protocol-version": version } });

  it("in 2025-03-26, 100 messages use 100 of the 120; a batch that does not fit is refused whole, before any runs", async () => {
    const token = await freshToken(h);
    const hundred = await rpc(h, batchOf(MCP_LIMITS.batchMessages), { token, ...inVersion("2025-03-26") });
    expect(hundred.status).toBe(200);
    expect(hundred.body).toHaveLength(MCP_LIMITS.batchMessages);
    // 100 + 30 > 120: one 429 for the whole batch (not 20 answers and 10 refusals), and it used none of the budget.
    const over = await rpc(h, batchOf(30), { token, ...inVersion("2025-03-26") });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ id: null, error: { code: MCP_GATE_ERRORS.rateLimited } });
    expect(over.body.error.message).toMatch(/each message of a batch is a call|calls a minute/);
    for (let i = 0; i < MCP_LIMITS.callsPerMinute - MCP_LIMITS.batchMessages; i++)
      expect((await rpc(h, callTool("whoami"), { token })).status, `single call ${i + 1}`).toBe(200);
    expect((await rpc(h, callTool("whoami"), { token })).status).toBe(429);
    h.clock.offsetMs += 60_000;
  });

  it("without a version header a batch is read as 2025-03-26 (the transport's rule for old clients), and counted", async () => {
    const token = await freshToken(h);
    expect((await rpc(h, batchOf(60), { token, ...inVersion(null) })).status).toBe(200);
    expect((await rpc(h, batchOf(60), { token, ...inVersion("2024-11-05") })).status).toBe(200);
    expect((await rpc(h, legacy("tools/list"), { token })).status).toBe(429);
    h.clock.offsetMs += 60_000;
  });

  it.each(["2025-06-18", "2025-11-25", "2026-07-28"])(
    "in %s, which has no batches, a batch is 400 -32600 naming the version, and costs nothing",
    async (version) => {
      const token = await freshToken(h);
      const refused = await rpc(h, batchOf(2), { token, ...inVersion(version) });
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
      expect(refused.body.error.message).toContain(`version ${version} has no JSON-RPC batches`);
      for (let i = 0; i < MCP_LIMITS.callsPerMinute; i++)
        expect((await rpc(h, callTool("whoami"), { token })).status, `call ${i + 1}`).toBe(200);
    },
  );

  it("a batch over 100 messages is 400 -32600 where batches exist; an empty one is the SDK's to answer", async () => {
    const token = await freshToken(h);
    const big = await rpc(h, batchOf(MCP_LIMITS.batchMessages + 1), { token, ...inVersion("2025-03-26") });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatchObject({ code: -32600 });
    expect(big.body.error.message).toMatch(/at most 100 messages, not 101/);
    const empty = await rpc(h, [], { token, ...inVersion("2025-03-26") });
    expect(empty.status).toBe(400);
  });
});
