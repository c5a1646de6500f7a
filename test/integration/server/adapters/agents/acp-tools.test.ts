// The `acp` agent with Baton's tools (adapters/agents/acp/with-tools.ts) against the scripted ACP agent, which
// calls the tools through the real `baton agent-tools` server (the built CLI) given in its session's mcpServers:
// after `open_pull_request` the adapter pushes the task's branch from the agent's checkout and the reply carries
// the pull request with the disclosure as body (acp-pull-request.test.ts covers it through the service); the
// call itself is kept in the activity; a turn's requests are its own (the file is emptied before each prompt).
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpAgent,
  createAcpAgentWithTools,
  turnRequestsFile,
} from "../../../../../src/server/adapters/agents/acp/index.js";
import type { RunTurnInput } from "../../../../../src/server/adapters/agents/port.js";
import { BATON_BIN } from "../../../../helpers/cli.js";

const AGENT_SCRIPT = join(import.meta.dirname, "..", "..", "..", "..", "helpers", "acp-agent.mjs");

let dir: string;
let agent: AcpAgent;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-agent-acp-tools-"));
  agent = createAcpAgentWithTools({
    agentName: "scripted-agent",
    argv: [process.execPath, AGENT_SCRIPT],
    timeoutMs: 20_000,
    baseEnv: { PATH: process.env.PATH, HOME: dir },
    baton: { command: process.execPath, args: [BATON_BIN] },
  });
});
afterAll(async () => {
  await agent?.close();
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
const turn = (body: string): RunTurnInput => ({
  task: { id: "task_1", workspaceId: "ws_1", title: "Fix login", repo: "acme/api", source: "api" },
  conversation: [
    { id: `msg_${++n}`, role: "user", kind: "message", body, createdAt: "2026-01-01T00:00:00.000Z" },
  ],
  sandbox: { id: "sbx_1", workdir: dir, env: { BATON_TASK_ID: "task_1" }, secrets: [] },
  signal: new AbortController().signal,
});

describe("the acp agent with Baton's tools", () => {
  it("open_pull_request where the sandbox names no code host to push to fails the turn saying so; the call stays in the activity", async () => {
    const result = await agent.runTurn(turn("fix it #pr"));
    expect(result).toEqual(
      expect.objectContaining({
        kind: "error",
        code: "agent_failed",
        reason: "the pull request could not be opened: there is no code host URL to push acme/api to",
      }),
    );
    expect(result.activity).toContainEqual(
      expect.objectContaining({
        kind: "baton_tool",
        data: { tool: "open_pull_request", title: "Fix the flaky login test", draft: true },
      }),
    );
    // The agent's own call is in the file until the next prompt empties it: a plain turn asks for nothing.
    expect(await readFile(turnRequestsFile(dir), "utf8")).toContain('"tool":"open_pull_request"');
    const next = await agent.runTurn(turn("and the docs"));
    expect(next).toEqual(
      expect.objectContaining({ kind: "reply", reply: { kind: "response", body: "ok: and the docs" } }),
    );
    expect(await readFile(turnRequestsFile(dir), "utf8")).toBe("");
  });
});
