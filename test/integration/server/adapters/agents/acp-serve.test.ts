// `baton serve --agent acp` end to end on host sandboxes (issue 34): a real service child process with
// fixtures/seeds/api.json runs the scripted ACP agent (test/helpers/acp-agent.mjs, started by the Node running the
// tests) for each task. A turn's reply is the agent's message, one reply per turn; a follow-up continues the same
// live session; an agent calling `ask_user` through the `baton agent-tools` MCP server it was given ends its turn as
// a `clarify`; the flags' usage errors name the flag.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../../../src/server/surfaces/api/wire.js";
import { runBaton } from "../../../../helpers/cli.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../../../helpers/serve.js";
import { API_SEED, TOKENS, until } from "../../../api/harness.js";

const AGENT_SCRIPT = join(import.meta.dirname, "..", "..", "..", "..", "helpers", "acp-agent.mjs");

let serve: ServeHandle;
let dir: string;
let agentLog: string;
let stopped = false;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-serve-"));
  agentLog = join(dir, "agent.jsonl");
  const argv = [process.execPath, AGENT_SCRIPT, `--log=${agentLog}`];
  serve = await startServe({
    seed: API_SEED,
    args: ["--agent", "acp", "--agent-acp-command", JSON.stringify(argv), "--agent-timeout", "60"],
  });
});
afterAll(async () => {
  if (!stopped) await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, serve.url), {
    method,
    headers: {
      authorization: `Bearer ${TOKENS.owner}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the public API's shapes are checked by its own suites
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

interface Message {
  role: string;
  kind: string;
  body: string;
}
const messagesOf = async (id: string) =>
  (await api("GET", API_PATHS.messages("ws_acme", id))).body.messages as Message[];
const agentMessages = async (id: string) => (await messagesOf(id)).filter((m) => m.role === "agent");

/** Waits for the task's `count`th agent message, with its turn over (the task idle again). */
async function agentReplies(id: string, count: number): Promise<Message[]> {
  return until(
    async () => {
      const task = (await api("GET", API_PATHS.task("ws_acme", id))).body;
      if (task.status === "implementing" || task.status === "pending") return undefined;
      const replies = await agentMessages(id);
      return replies.length >= count ? replies : undefined;
    },
    `task ${id}'s reply ${count}`,
    30_000,
  );
}

async function startTask(prompt: string): Promise<string> {
  const started = await api("POST", API_PATHS.tasks("ws_acme"), { prompt });
  expect(started.status).toBe(202);
  return started.body.task.id as string;
}

async function agentEvents(): Promise<{ pid: number; event: string; sessionId?: string; last?: string }[]> {
  const text = await readFile(agentLog, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line));
}

describe("baton serve --agent acp (host sandboxes)", () => {
  it("a turn's reply is the agent's message, one per turn; a follow-up continues the same session", async () => {
    const id = await startTask("fix the flaky login test");
    const first = await agentReplies(id, 1);
    expect(first).toEqual([
      expect.objectContaining({ kind: "response", body: "ok: fix the flaky login test" }),
    ]);

    const followUp = await api("POST", API_PATHS.messages("ws_acme", id), { text: "and the logout one" });
    expect(followUp.status).toBeLessThan(300);
    const both = await agentReplies(id, 2);
    expect(both.map((m) => [m.kind, m.body])).toEqual([
      ["response", "ok: fix the flaky login test"],
      ["response", "ok: and the logout one"],
    ]);
    // One agent process and one ACP session carried both turns; the second prompt held only the new message.
    const prompts = (await agentEvents()).filter(
      (e) => e.event === "session/prompt" && /flaky login|logout one/.test(e.last ?? ""),
    );
    expect(prompts).toHaveLength(2);
    expect(prompts[1]!.sessionId).toBe(prompts[0]!.sessionId);
    expect(prompts[1]!.pid).toBe(prompts[0]!.pid);
    expect(prompts[1]!.last).not.toContain("flaky login");
    const news = (await agentEvents()).filter(
      (e) => e.event === "session/new" && e.sessionId === prompts[0]!.sessionId,
    );
    expect(news).toHaveLength(1);
  });

  it("an agent calling ask_user through baton agent-tools ends its turn as a clarify with the question", async () => {
    const id = await startTask("tidy the migrations #ask");
    const [reply] = await agentReplies(id, 1);
    expect(reply).toEqual(
      expect.objectContaining({
        kind: "clarify",
        body: "Which database should the fix target?\n\nI need this before I edit anything.",
      }),
    );
    // The call went through the MCP server the session was given, not around it.
    expect((await agentEvents()).some((e) => e.event === "tool")).toBe(true);

    // The answer resumes the same session, and that turn (no tool call) is a plain response again.
    await api("POST", API_PATHS.messages("ws_acme", id), { text: "PostgreSQL" });
    const both = await agentReplies(id, 2);
    expect(both[1]).toEqual(expect.objectContaining({ kind: "response", body: "ok: PostgreSQL" }));
  });

  it("an agent that only asks (no text of its own) still ends as a clarify", async () => {
    const id = await startTask("write the changelog #askonly");
    const [reply] = await agentReplies(id, 1);
    expect(reply).toEqual(
      expect.objectContaining({ kind: "clarify", body: "Should I also update the docs?" }),
    );
  });
});

/** Whether a process still exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("baton serve --agent acp: agent processes end with their task and the service", () => {
  it("a stopped task's agent process ends; the service's stop ends every other one", async () => {
    const id = await startTask("run the whole suite #slow");
    const prompt = await until(
      async () =>
        (await agentEvents()).find((e) => e.event === "session/prompt" && /whole suite/.test(e.last ?? "")),
      "the slow turn's prompt",
    );
    expect(alive(prompt.pid)).toBe(true);
    const stop = await api("POST", API_PATHS.stop("ws_acme", id));
    expect(stop.status).toBeLessThan(300);
    await until(() => !alive(prompt.pid), "the stopped task's agent process to end", 20_000);

    // The earlier tasks' processes wait, idle, for a follow-up until the service stops.
    const others = [...new Set((await agentEvents()).map((e) => e.pid))].filter((pid) => pid !== prompt.pid);
    expect(others.some(alive)).toBe(true);
    stopped = true;
    await serve.stop();
    await until(() => !others.some(alive), "every agent process to end with the service", 10_000);
  });
});

describe("baton serve --agent acp: usage errors", () => {
  const argv = JSON.stringify([process.execPath, AGENT_SCRIPT]);
  it.each([
    [["--agent", "acp"], /--agent acp needs --agent-acp-command/],
    [["--agent-acp-command", argv], /--agent-acp-command is only for --agent acp/],
    [["--agent", "manual", "--agent-acp-command", argv], /--agent-acp-command is only for --agent acp/],
    [["--agent", "acp", "--agent-acp-command", "gemini --acp"], /--agent-acp-command must be .* JSON array/],
    [["--agent", "acp", "--agent-acp-command", "[]"], /--agent-acp-command must be .* JSON array/],
    [
      ["--agent", "claude-code"],
      /--agent claude-code runs Claude Code in the task's box: add --sandbox-driver/,
    ],
    [["--agent", "aider"], /--agent must be scripted, manual, acp or a catalog agent \(claude-code, codex/],
    [
      ["--agent", "acp", "--agent-acp-command", argv, "--agent-command", "/bin/true"],
      /--agent and --agent-command/,
    ],
  ])("baton serve %j is refused, naming the flag", async (args, message) => {
    const result = await runBaton(["serve", "--db", join(dir, "refused.sqlite"), ...args]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(message);
  });
});
