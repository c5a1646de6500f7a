// The `acp` agent adapter against a real agent process on the official ACP SDK's agent side
// (test/helpers/acp-agent.mjs): the handshake, every session update kept as activity apart from the one reply,
// permission answers, cancellation within the grace, broken agents failing with sanitised reasons naming them,
// session/load after a lost process, and the notices for an empty or refused turn.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpAgent,
  type AcpAgentOptions,
  createAcpAgent,
} from "../../../../../src/server/adapters/agents/acp/index.js";
import type {
  ConversationEntry,
  RunTurnInput,
  TurnResult,
} from "../../../../../src/server/adapters/agents/port.js";
import { readVersion } from "../../../../../src/version.js";
import { pollUntil } from "../../../../helpers/poll.js";

const AGENT_SCRIPT = join(import.meta.dirname, "..", "..", "..", "..", "helpers", "acp-agent.mjs");
const TURN_TOKEN = "btt_canary-acp-turn-token-5d2c8e1f93-never-print";
const LEASE = "btl_canary-acp-lease-7a4b0c6d28-never-print";
const NAME = "scripted-agent";

let dir: string;
let run = 0;
const agents: AcpAgent[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-agent-acp-"));
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.close()));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface World {
  log: string;
  state: string;
  env: Record<string, string>;
}

/** A fresh log and session folder for the scripted agent, through the sandbox's variables (its only ones). */
function world(extra: Record<string, string> = {}): World {
  run += 1;
  const log = join(dir, `agent-${run}.jsonl`);
  const state = join(dir, `sessions-${run}`);
  return {
    log,
    state,
    env: {
      ACP_AGENT_LOG: log,
      ACP_AGENT_STATE: state,
      BATON_TASK_ID: "task_1",
      BATON_TURN_TOKEN: TURN_TOKEN,
      BATON_SANDBOX_LEASE: LEASE,
      ...extra,
    },
  };
}

function agent(options: Partial<AcpAgentOptions> = {}): AcpAgent {
  const created = createAcpAgent({
    agentName: NAME,
    argv: [process.execPath, AGENT_SCRIPT],
    timeoutMs: 20_000,
    baseEnv: { PATH: process.env.PATH, HOME: dir, SERVICE_ONLY_VARIABLE: "must-not-leak" },
    mcpServers: () => [{ name: "baton", command: "/usr/bin/baton-mcp", args: ["--stdio"], env: [] }],
    ...options,
  });
  agents.push(created);
  return created;
}

let entryNo = 0;
const user = (body: string): ConversationEntry => ({
  id: `msg_${++entryNo}`,
  role: "user",
  kind: "message",
  body,
  createdAt: "2026-01-01T00:00:00.000Z",
});
const platform = (body: string): ConversationEntry => ({
  id: `plt_${++entryNo}`,
  role: "platform",
  kind: "error",
  body,
  createdAt: "2026-01-01T00:00:01.000Z",
});
const agentEntry = (body: string): ConversationEntry => ({
  id: `agt_${++entryNo}`,
  role: "agent",
  kind: "response",
  body,
  createdAt: "2026-01-01T00:00:01.000Z",
});

function turn(
  w: World,
  conversation: ConversationEntry[],
  signal = new AbortController().signal,
): RunTurnInput {
  return {
    task: { id: "task_1", workspaceId: "ws_1", title: "Fix the README", repo: "acme/api", source: "api" },
    conversation,
    sandbox: {
      id: "sbx_1",
      workdir: dir,
      env: w.env,
      secrets: [
        { name: "BATON_TURN_TOKEN", value: TURN_TOKEN },
        { name: "BATON_SANDBOX_LEASE", value: LEASE },
      ],
    },
    signal,
  };
}

interface Logged {
  pid: number;
  event: string;
  [key: string]: unknown;
}
async function logOf(w: World): Promise<Logged[]> {
  const text = await readFile(w.log, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Logged);
}

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const replyOf = (result: TurnResult) => {
  if (result.kind !== "reply") throw new Error(`expected a reply, got ${JSON.stringify(result)}`);
  return result.reply.body;
};

describe("acp agent: a turn is an ACP prompt", () => {
  it("initializes as baton with its version and no fs or terminal, and opens the session in the checkout with the given MCP servers", async () => {
    const w = world();
    const result = await agent().runTurn(turn(w, [user("hello")]));
    expect(replyOf(result)).toBe("ok: hello");
    const log = await logOf(w);
    const init = log.find((entry) => entry.event === "initialize")!;
    // The SDK's agent side fills in defaults it parses (auth capabilities): the rest is what Baton sent.
    expect(init.params).toMatchObject({
      protocolVersion: 1,
      clientInfo: { name: "baton", version: readVersion() },
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const created = log.find((entry) => entry.event === "session/new")!;
    expect(created.params).toEqual({
      cwd: dir,
      mcpServers: [{ name: "baton", command: "/usr/bin/baton-mcp", args: ["--stdio"], env: [] }],
    });
  });

  it("records every session/update kind of the SDK's schema as the turn's activity, in order, thoughts only when asked", async () => {
    const all = [
      "user_message_chunk",
      "agent_thought_chunk",
      "tool_call",
      "tool_call_update",
      "plan",
      "available_commands_update",
      "current_mode_update",
      "config_option_update",
      "session_info_update",
      "usage_update",
      "notice",
      "compaction_update",
      "compaction_summary_chunk",
      "agent_message_chunk",
    ];
    const plain = await agent().runTurn(turn(world(), [user("#updates")]));
    expect(plain.activity?.map((record) => record.kind)).toEqual(
      all.filter((kind) => kind !== "agent_thought_chunk"),
    );
    const thinking = await agent({ keepThoughts: true }).runTurn(turn(world(), [user("#updates")]));
    expect(thinking.activity?.map((record) => record.kind)).toEqual(all);
    expect(replyOf(thinking)).toBe("All updates sent.");
    const byKind = new Map(thinking.activity!.map((record) => [record.kind, record.data]));
    expect(byKind.get("tool_call")).toEqual({
      toolCallId: "t1",
      title: "Read README.md",
      kind: "read",
      status: "pending",
    });
    expect(byKind.get("agent_thought_chunk")).toEqual({ text: "thinking about it" });
    expect(byKind.get("plan")).toEqual({
      entries: [{ content: "edit the file", priority: "high", status: "in_progress" }],
    });
    for (const record of thinking.activity!) expect(Date.parse(record.at)).not.toBeNaN();
  });

  it("joins the agent's message chunks into the one reply, a blank line where a tool call came between", async () => {
    const result = await agent().runTurn(turn(world(), [user("#chunks")]));
    expect(replyOf(result)).toBe("Hello world\n\nSecond part.");
    expect(result.activity?.map((record) => [record.kind, record.data.text])).toEqual([
      ["agent_message_chunk", "Hello world"],
      ["tool_call", undefined],
      ["agent_message_chunk", "Second part."],
    ]);
  });

  it("answers permission requests by the policy (allow; 'always' where offered) and records each", async () => {
    const result = await agent().runTurn(turn(world(), [user("#permission")]));
    expect(replyOf(result)).toBe("chose always then yes");
    const asked = result.activity!.filter((record) => record.kind === "permission");
    expect(
      asked.map((record) => [(record.data.toolCall as { title: string }).title, record.data.outcome]),
    ).toEqual([
      ["Run npm test", { outcome: "selected", optionId: "always" }],
      ["Write README.md", { outcome: "selected", optionId: "yes" }],
    ]);
    expect(asked[0]!.data.options).toHaveLength(3);
  });

  it("sends only the live session's unseen user messages on a follow-up, to the same process", async () => {
    const w = world();
    const acp = agent();
    const first = [user("#echo first")];
    const firstReply = replyOf(await acp.runTurn(turn(w, first)));
    expect(firstReply).toContain("You are working on a task in a Baton sandbox");
    expect(firstReply).toContain("Task: Fix the README\nRepository: acme/api\n\n#echo first");
    const second = [...first, agentEntry(firstReply), user("more context"), user("#echo second")];
    expect(replyOf(await acp.runTurn(turn(w, second)))).toBe("more context\n---\n#echo second");
    const prompts = (await logOf(w)).filter((entry) => entry.event === "session/prompt");
    expect(new Set(prompts.map((entry) => entry.pid)).size).toBe(1);
    expect((await logOf(w)).filter((entry) => entry.event === "initialize")).toHaveLength(1);
  });

  it("starts the agent with the sandbox's variables and PATH and HOME only, never the service's own", async () => {
    const w = world();
    const names = JSON.parse(replyOf(await agent().runTurn(turn(w, [user("#env")])))) as string[];
    expect(names.filter((name) => !["LC_CTYPE", "_"].includes(name))).toEqual(
      [...Object.keys(w.env), "HOME", "PATH"].sort(),
    );
  });
});

describe("acp agent: stops and the time limit", () => {
  it("a stop sends session/cancel, ends the turn `stopped` within the grace, and a follow-up works on the same session", async () => {
    const w = world();
    const acp = agent({ cancelGraceMs: 10_000 });
    const controller = new AbortController();
    const running = acp.runTurn(turn(w, [user("#slow")], controller.signal));
    await pollUntil(
      () => logOf(w),
      (log) => log.some((entry) => entry.event === "session/prompt"),
      { timeoutMs: 10_000 },
    );
    const stoppedAt = Date.now();
    controller.abort();
    const result = await running;
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(result).toMatchObject({ kind: "error", code: "stopped", reason: "the turn was stopped" });
    expect(result.activity?.map((record) => record.kind)).toEqual(["tool_call", "cancel", "permission"]);
    const log = await logOf(w);
    expect(log.filter((entry) => entry.event === "session/cancel")).toHaveLength(1);
    // A permission request after the cancel is answered `cancelled`, as ACP asks.
    expect(log.find((entry) => entry.event === "late-permission")?.outcome).toEqual({ outcome: "cancelled" });
    const followUp = await acp.runTurn(turn(w, [user("#slow"), user("carry on")]));
    expect(replyOf(followUp)).toBe("ok: carry on");
    expect(new Set((await logOf(w)).map((entry) => entry.pid)).size).toBe(1);
  });

  it("an agent that ignores session/cancel loses its process group after the grace", async () => {
    const w = world();
    const acp = agent({ cancelGraceMs: 500 });
    const controller = new AbortController();
    const running = acp.runTurn(turn(w, [user("#stubborn")], controller.signal));
    const log = await pollUntil(
      () => logOf(w),
      (entries) => entries.some((entry) => entry.event === "session/prompt"),
      { timeoutMs: 10_000 },
    );
    const pid = log[0]!.pid;
    controller.abort();
    const result = await running;
    expect(result).toMatchObject({ kind: "error", code: "stopped" });
    expect(
      await pollUntil(
        () => pidAlive(pid),
        (alive) => !alive,
        { timeoutMs: 5_000 },
      ),
    ).toBe(false);
    // The next turn starts a new process.
    const next = [user("#stubborn"), platform("The turn was stopped."), user("again")];
    expect(replyOf(await acp.runTurn(turn(w, next)))).toBe("ok: again");
    const pids = new Set((await logOf(w)).map((entry) => entry.pid));
    expect(pids.size).toBe(2);
  });

  it("the agent time limit cancels like a stop and ends the turn `timed_out`, naming the agent", async () => {
    const w = world();
    const result = await agent({ timeoutMs: 1_000 }).runTurn(turn(w, [user("#slow")]));
    expect(result).toMatchObject({
      kind: "error",
      code: "timed_out",
      reason: `the agent ${NAME} ran past its 1 s limit`,
    });
    expect((await logOf(w)).some((entry) => entry.event === "session/cancel")).toBe(true);
  });
});

describe("acp agent: broken agents fail the turn with a sanitised reason naming the agent", () => {
  const failures: [string, Partial<AcpAgentOptions>, Record<string, string>, string, RegExp][] = [
    [
      "one that never answers initialize",
      { handshakeMs: 1_000 },
      { ACP_AGENT_MODE: "no-init" },
      "hello",
      new RegExp(`^the agent ${NAME} did not answer initialize within 1 s$`),
    ],
    [
      "one that exits in the middle of a turn (its stderr is sanitised)",
      {},
      {},
      "#exit",
      new RegExp(
        `^the agent ${NAME} exited with status 3: fatal: crashing with token \\[REDACTED:BATON_TURN_TOKEN\\]$`,
      ),
    ],
    [
      "one that prints garbage in the middle of a turn",
      {},
      {},
      "#garbage",
      new RegExp(
        `^the agent ${NAME} wrote a line that is not JSON on its ACP output: this is not json \\[REDACTED:BATON_TURN_TOKEN\\]$`,
      ),
    ],
    [
      "one that prints garbage before it speaks ACP",
      {},
      { ACP_AGENT_MODE: "garbage-at-start" },
      "hello",
      new RegExp(`^the agent ${NAME} wrote a line that is not JSON on its ACP output: Starting the agent`),
    ],
    [
      "one that speaks another protocol version",
      {},
      { ACP_AGENT_MODE: "version-2" },
      "hello",
      new RegExp(`^the agent ${NAME} speaks ACP version 2; Baton speaks version 1$`),
    ],
  ];
  for (const [what, options, env, message, reason] of failures) {
    it(what, async () => {
      const w = world(env);
      const result = await agent(options).runTurn(turn(w, [user(message)]));
      expect(result.kind).toBe("error");
      if (result.kind !== "error") return;
      expect(result.code).toBe("agent_failed");
      expect(result.reason).toMatch(reason);
      // The process is gone: nothing it started outlives the failure.
      const pids = [...new Set((await logOf(w)).map((entry) => entry.pid))];
      for (const pid of pids)
        expect(
          await pollUntil(
            () => pidAlive(pid),
            (alive) => !alive,
            { timeoutMs: 5_000 },
          ),
        ).toBe(false);
    });
  }

  it("one whose program does not exist", async () => {
    const result = await agent({ argv: [join(dir, "no-such-agent")] }).runTurn(
      turn(world(), [user("hello")]),
    );
    expect(result).toMatchObject({ kind: "error", code: "agent_failed" });
    expect(result.kind === "error" && result.reason).toMatch(
      new RegExp(`^the agent ${NAME} could not start: `),
    );
  });

  it("a follow-up after a crash starts a new process that is told the conversation so far", async () => {
    const w = world();
    const acp = agent();
    const crashed = [user("#exit")];
    const failed = await acp.runTurn(turn(w, crashed));
    expect(failed.kind).toBe("error");
    const notice = platform(`The turn failed: ${failed.kind === "error" ? failed.reason : ""}.`);
    const body = replyOf(await acp.runTurn(turn(w, [...crashed, notice, user("#echo retry")])));
    expect(body).toContain("You are working on a task in a Baton sandbox");
    expect(body).toContain("The conversation so far");
    expect(body).toContain(
      "[user]\n#exit\n\n[Baton (error)]\nThe turn failed: the agent scripted-agent exited",
    );
    expect(body).toContain("The new message:\n\n#echo retry");
  });
});

describe("acp agent: secrets", () => {
  it("a planted canary never appears in the reply, the activity or a reason", async () => {
    const w = world();
    const acp = agent({ keepThoughts: true });
    const leaked = await acp.runTurn(turn(w, [user("#leak")]));
    const crashed = await acp.runTurn(turn(w, [user("#leak"), user("#exit")]));
    const garbage = await acp.runTurn(turn(w, [user("#leak"), user("#exit"), user("#garbage")]));
    const everything = JSON.stringify([leaked, crashed, garbage]);
    expect(everything).toContain("[REDACTED:BATON_TURN_TOKEN]");
    expect(everything).not.toContain(TURN_TOKEN);
    expect(everything).not.toContain(TURN_TOKEN.slice(10));
    expect(replyOf(leaked)).toBe("the token is [REDACTED:BATON_TURN_TOKEN] indeed");
  });
});

describe("acp agent: the entry's session mode (Codex starts read-only: its entry says `auto`)", () => {
  const events = (log: Logged[]) => log.map((entry) => entry.event).filter((event) => event !== "tool");

  it("is set by session/set_mode right after session/new, before the first prompt, and recorded", async () => {
    const w = world();
    const result = await agent({ sessionMode: "auto" }).runTurn(turn(w, [user("hello")]));
    expect(replyOf(result)).toBe("ok: hello");
    const log = await logOf(w);
    expect(events(log)).toEqual(["initialize", "session/new", "session/set_mode", "session/prompt"]);
    const created = log.find((entry) => entry.event === "session/new")!;
    expect(log.find((entry) => entry.event === "session/set_mode")!.params).toEqual({
      sessionId: created.sessionId,
      modeId: "auto",
    });
    expect(result.activity).toContainEqual(
      expect.objectContaining({ kind: "session_mode", data: { modeId: "auto" } }),
    );
  });

  it("is set again after session/load in a new process", async () => {
    const w = world({ ACP_AGENT_LOAD: "1" });
    const acp = agent({ sessionMode: "auto" });
    const first = [user("#echo one")];
    const firstReply = replyOf(await acp.runTurn(turn(w, first)));
    await acp.release("task_1");
    await acp.runTurn(turn(w, [...first, agentEntry(firstReply), user("#echo two")]));
    expect(events(await logOf(w))).toEqual([
      "initialize",
      "session/new",
      "session/set_mode",
      "session/prompt",
      "initialize",
      "session/load",
      "session/set_mode",
      "session/prompt",
    ]);
  });

  it("is not sent when the entry names none", async () => {
    const w = world();
    await agent().runTurn(turn(w, [user("hello")]));
    expect(events(await logOf(w))).toEqual(["initialize", "session/new", "session/prompt"]);
  });

  it("a mode the agent refuses fails the turn naming session/set_mode, with no prompt sent", async () => {
    const w = world();
    const result = await agent({ sessionMode: "yolo" }).runTurn(turn(w, [user("hello")]));
    expect(result).toMatchObject({ kind: "error", code: "agent_failed" });
    expect(result.kind === "error" && result.reason).toMatch(
      /scripted-agent answered session\/set_mode with an error/,
    );
    expect(events(await logOf(w))).not.toContain("session/prompt");
  });
});

describe("acp agent: sessions outlive a process", () => {
  it("loads the earlier session when the agent advertises loadSession, and sends only the new message", async () => {
    const w = world({ ACP_AGENT_LOAD: "1" });
    const acp = agent();
    const first = [user("#echo one")];
    const firstReply = replyOf(await acp.runTurn(turn(w, first)));
    const created = (await logOf(w)).find((entry) => entry.event === "session/new")!;
    await acp.release("task_1");
    const result = await acp.runTurn(turn(w, [...first, agentEntry(firstReply), user("#echo two")]));
    expect(replyOf(result)).toBe("#echo two");
    const log = await logOf(w);
    const loaded = log.find((entry) => entry.event === "session/load")!;
    expect(loaded.sessionId).toBe(created.sessionId);
    expect(loaded.pid).not.toBe(created.pid);
    expect(log.filter((entry) => entry.event === "session/new")).toHaveLength(1);
    // The replayed history is not this turn's activity; the load is.
    expect(result.activity?.map((record) => record.kind)).toEqual(["session_loaded", "agent_message_chunk"]);
    expect(result.activity?.[0]?.data).toEqual({ sessionId: created.sessionId, replayed: 2 });
  });

  it("starts a new session carrying the conversation when the agent cannot load", async () => {
    const w = world();
    const acp = agent();
    const first = [user("#echo one")];
    const firstReply = replyOf(await acp.runTurn(turn(w, first)));
    await acp.release("task_1");
    const body = replyOf(await acp.runTurn(turn(w, [...first, agentEntry(firstReply), user("#echo two")])));
    expect(body).toContain("You are working on a task in a Baton sandbox");
    expect(body).toContain("[you replied]\nYou are working on a task");
    expect(body).toContain("The new message:\n\n#echo two");
    const log = await logOf(w);
    expect(log.filter((entry) => entry.event === "session/load")).toHaveLength(0);
    expect(log.filter((entry) => entry.event === "session/new")).toHaveLength(2);
  });

  it("a new process replaces a live one whose variables changed (a new sandbox), loading its session", async () => {
    const w = world({ ACP_AGENT_LOAD: "1" });
    const acp = agent();
    await acp.runTurn(turn(w, [user("one")]));
    const moved = { ...w, env: { ...w.env, BATON_SANDBOX_LEASE: `${LEASE}-renewed` } };
    // A new turn token alone keeps the process; a new lease does not.
    await acp.runTurn(
      turn({ ...w, env: { ...w.env, BATON_TURN_TOKEN: `${TURN_TOKEN}-2` } }, [user("one"), user("two")]),
    );
    expect(new Set((await logOf(w)).map((entry) => entry.pid)).size).toBe(1);
    await acp.runTurn(turn(moved, [user("one"), user("two"), user("three")]));
    const log = await logOf(w);
    expect(new Set(log.map((entry) => entry.pid)).size).toBe(2);
    expect(log.filter((entry) => entry.event === "session/load")).toHaveLength(1);
  });
});

describe("acp agent: turns that end without a reply", () => {
  const notices: [string, string, string][] = [
    ["#empty", "an empty turn", `the agent ${NAME} ended its turn without a message`],
    [
      "#refusal",
      "a refusal",
      `the agent ${NAME} refused to go on (stop reason refusal); what it wrote is in the turn's activity`,
    ],
  ];
  for (const [message, what, reason] of notices) {
    it(`${what} becomes a notice naming it`, async () => {
      const result = await agent().runTurn(turn(world(), [user(message)]));
      expect(result).toMatchObject({ kind: "error", code: "agent_failed", reason });
    });
  }
});

describe("acp agent: bounds", () => {
  it("keeps the activity within its budget, the oldest records dropped behind one marker", async () => {
    const result = await agent({ activityLimits: { maxChars: 20_000, maxStringChars: 1_000 } }).runTurn(
      turn(world(), [user("#many")]),
    );
    expect(replyOf(result)).toBe("many done");
    const activity = result.activity!;
    expect(activity[0]!.kind).toBe("dropped");
    expect(activity[0]!.data.records).toBeGreaterThan(100);
    expect(activity.at(-1)!.kind).toBe("agent_message_chunk");
    expect(JSON.stringify(activity).length).toBeLessThan(22_000);
  });

  it("cuts a reply past 100,000 characters and says so", async () => {
    const result = await agent().runTurn(turn(world(), [user("#long")]));
    const body = replyOf(result);
    expect(body.length).toBeLessThanOrEqual(100_000);
    expect(body).toMatch(/\[The agent's reply was cut at 100,000 characters\.\]$/);
  });
});
