// A turn's activity end to end with the real ACP adapter (issue 34, point 4): a `baton serve --agent acp` child
// process on host sandboxes runs the scripted ACP agent (test/helpers/acp-agent.mjs, the SDK's own agent side),
// and what the agent did reaches GET .../activity per turn, for a reply, a turn a member stopped and an agent that
// crashed, while the conversation holds only the replies and notices.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, TOKENS, until } from "../api/harness.js";

const AGENT_SCRIPT = new URL("../../helpers/acp-agent.mjs", import.meta.url).pathname;
const WS = "ws_acme";

let serve: ServeHandle;
let dir: string;
let agentLog: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "activity-acp-"));
  agentLog = join(dir, "agent.jsonl");
  const argv = [process.execPath, AGENT_SCRIPT, `--log=${agentLog}`];
  serve = await startServe({
    seed: API_SEED,
    args: ["--agent", "acp", "--agent-acp-command", JSON.stringify(argv), "--agent-timeout", "60"],
  });
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown, token: string = TOKENS.owner) {
  const response = await fetch(new URL(path, serve.url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the route's shape is checked against the OpenAPI document elsewhere
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

interface Turn {
  number: number;
  state: string;
  records: { kind: string; data: Record<string, unknown> }[];
}

async function startTask(prompt: string): Promise<string> {
  const started = await api("POST", API_PATHS.tasks(WS), { prompt });
  expect(started.status).toBe(202);
  return started.body.task.id;
}

/** Polls a few times a second: the API's 600 GET a minute per endpoint is the token's whole budget. */
async function activityOf(id: string): Promise<Turn[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await api("GET", API_PATHS.activity(WS, id));
    expect(answer.status).toBe(200);
    if (answer.body.turns.length > 0) return answer.body.turns as Turn[];
    if (Date.now() > deadline) throw new Error(`timed out waiting for task ${id}'s activity`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("baton serve --agent acp keeps each turn's activity", () => {
  it("a reply's turn: every session update in order, none of it in the conversation", async () => {
    const id = await startTask("show every update #updates");
    const [turn] = await activityOf(id);
    expect(turn).toMatchObject({ number: 1, state: "succeeded" });
    const kinds = turn!.records.map((r) => r.kind);
    for (const kind of ["tool_call", "tool_call_update", "plan", "agent_message_chunk"])
      expect(kinds).toContain(kind);
    expect(kinds.indexOf("tool_call")).toBeLessThan(kinds.indexOf("tool_call_update"));
    // Thought text is off by default.
    expect(kinds).not.toContain("agent_thought_chunk");
    const messages = (await api("GET", API_PATHS.messages(WS, id))).body.messages as {
      role: string;
      body: string;
    }[];
    expect(messages.map((m) => m.role)).toEqual(["user", "agent"]);
    expect(JSON.stringify(messages)).not.toContain("Read README.md");
    // Another workspace's member sees none of it.
    expect((await api("GET", API_PATHS.activity(WS, id), undefined, TOKENS.stranger)).status).toBe(404);
  });

  it("a turn a member stopped keeps what the agent did before the stop, and the cancel", async () => {
    const id = await startTask("run the whole suite #slow");
    // The agent has the prompt (it sends its tool call, then waits for the cancel): stop now.
    await until(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const log = await readFile(agentLog, "utf8").catch(() => "");
      return (
        log.split("\n").some((line) => line.includes("session/prompt") && line.includes("whole suite")) ||
        undefined
      );
    }, "the slow turn's prompt to reach the agent");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await api("POST", API_PATHS.stop(WS, id))).status).toBe(202);
    const [turn] = await activityOf(id);
    expect(turn!.state).toBe("cancelled");
    expect(turn!.records).toContainEqual(
      expect.objectContaining({ kind: "tool_call", data: expect.objectContaining({ title: "npm test" }) }),
    );
    expect(turn!.records.map((r) => r.kind)).toContain("cancel");
  });

  it("an agent that crashed: the turn failed, and what it said before is in its activity", async () => {
    const id = await startTask("crash please #exit");
    const [turn] = await activityOf(id);
    expect(turn!.state).toBe("failed");
    expect(turn!.records).toContainEqual(
      expect.objectContaining({
        kind: "agent_message_chunk",
        data: expect.objectContaining({ text: "about to crash" }),
      }),
    );
  });
});
