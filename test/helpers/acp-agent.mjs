// A scripted ACP agent on the official SDK's agent side (`acp.agent()`), run as a real child process by the `acp`
// adapter's tests. What a turn does is chosen by a `#word` in the prompt's last text block (see BEHAVIOURS);
// ACP_AGENT_MODE picks a broken agent (`no-init`, `garbage-at-start`); ACP_AGENT_LOAD=1 advertises loadSession,
// with sessions kept as files under ACP_AGENT_STATE so a new process can load them; every message it receives
// is appended to ACP_AGENT_LOG as one JSON line with its pid. `#ask` and `#pr` call Baton's tools through the MCP
// server the session was given in `mcpServers` (the SDK's MCP client over stdio), as a real agent does. `#change`
// works a repository as a coding agent does: the prompt's last `change-spec: <json>` line says which repository
// to clone (from BATON_GIT_URL into BATON_CHECKOUT_ROOT), which files to write there (and whether to commit
// them), which files to leave under HOME (a saved handoff, as `baton env activate` would) and the arguments of
// its `open_pull_request` call; `$HOME` and `$BATON_TURN_TOKEN` in the spec become the variables' values.
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const { ACP_AGENT_STATE, ACP_AGENT_MODE = "", ACP_AGENT_LOAD } = process.env;
// `--log=<file>` does what ACP_AGENT_LOG does, for a service that starts the agent with a clean environment.
const ACP_AGENT_LOG =
  process.env.ACP_AGENT_LOG ?? process.argv.find((arg) => arg.startsWith("--log="))?.slice("--log=".length);
const log = (event, data = {}) => {
  if (ACP_AGENT_LOG)
    appendFileSync(ACP_AGENT_LOG, `${JSON.stringify({ pid: process.pid, event, ...data })}\n`);
};
const sessionFile = (id) => join(ACP_AGENT_STATE ?? "/nonexistent", `${id}.json`);
const history = new Map();
/** Each session's `mcpServers` from session/new or session/load. */
const servers = new Map();
const cancelled = new Map();
/** The modes `session/set_mode` accepts (Codex's names); others are refused. */
const SESSION_MODES = ["read-only", "auto", "full-access"];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function save(sessionId) {
  if (!ACP_AGENT_STATE) return;
  mkdirSync(ACP_AGENT_STATE, { recursive: true });
  writeFileSync(sessionFile(sessionId), JSON.stringify(history.get(sessionId)));
}

const update = (client, sessionId, body) => client.notify("session/update", { sessionId, update: body });
const say = (client, sessionId, text, extra = {}) =>
  update(client, sessionId, {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text },
    ...extra,
  });

/** Waits until the client cancels the session's turn; resolves true then. */
function untilCancelled(sessionId) {
  return new Promise((resolve) => cancelled.set(sessionId, () => resolve(true)));
}

const ALL_UPDATES = [
  { sessionUpdate: "user_message_chunk", content: { type: "text", text: "the user said" } },
  { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "thinking about it" } },
  { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read README.md", kind: "read", status: "pending" },
  {
    sessionUpdate: "tool_call_update",
    toolCallId: "t1",
    status: "completed",
    content: [{ type: "diff", path: "/w/README.md", oldText: "a", newText: "b" }],
  },
  {
    sessionUpdate: "plan",
    entries: [{ content: "edit the file", priority: "high", status: "in_progress" }],
  },
  {
    sessionUpdate: "available_commands_update",
    availableCommands: [{ name: "test", description: "run tests" }],
  },
  { sessionUpdate: "current_mode_update", currentModeId: "auto" },
  { sessionUpdate: "config_option_update", configOptions: [] },
  { sessionUpdate: "session_info_update", title: "Fixing the README" },
  { sessionUpdate: "usage_update", used: 1200, size: 200000 },
  { sessionUpdate: "notice", severity: "info", title: "Model switched" },
  { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" },
  {
    sessionUpdate: "compaction_summary_chunk",
    compactionId: "c1",
    content: { type: "text", text: "summary" },
  },
  { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "All updates sent." } },
];

/** Calls one of Baton's tools through the session's `baton` MCP server; returns the tool's text. */
async function callBatonTool(sessionId, name, args) {
  const entry = (servers.get(sessionId) ?? []).find((server) => server.name === "baton");
  if (!entry) throw new Error("no baton MCP server in this session");
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: Object.fromEntries(entry.env.map(({ name: key, value }) => [key, value])),
    stderr: "ignore",
  });
  const client = new Client({ name: "scripted-test-agent", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name, arguments: args });
    log("tool", { name, isError: result.isError ?? false });
    return result.content.map((block) => block.text).join("");
  } finally {
    await client.close();
  }
}

/** What a turn does, by the `#word` in its prompt. Each returns the stop reason and the reply it gave. */
const BEHAVIOURS = {
  async updates(client, sessionId) {
    for (const body of ALL_UPDATES) await update(client, sessionId, body);
    return ["end_turn", "All updates sent."];
  },
  async chunks(client, sessionId) {
    await say(client, sessionId, "Hello");
    await say(client, sessionId, " world");
    await update(client, sessionId, {
      sessionUpdate: "tool_call",
      toolCallId: "t2",
      title: "Edit",
      kind: "edit",
    });
    await say(client, sessionId, "Second part.");
    return ["end_turn", "Hello world\n\nSecond part."];
  },
  async permission(client, sessionId) {
    const first = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "p1", title: "Run npm test", kind: "execute" },
      options: [
        { optionId: "once", name: "Allow once", kind: "allow_once" },
        { optionId: "always", name: "Always allow", kind: "allow_always" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
    });
    const second = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "p2", title: "Write README.md", kind: "edit" },
      options: [
        { optionId: "no", name: "Reject", kind: "reject_once" },
        { optionId: "yes", name: "Allow", kind: "allow_once" },
      ],
    });
    const text = `chose ${first.outcome.optionId} then ${second.outcome.optionId}`;
    await say(client, sessionId, text);
    return ["end_turn", text];
  },
  async slow(client, sessionId) {
    await update(client, sessionId, {
      sessionUpdate: "tool_call",
      toolCallId: "t3",
      title: "npm test",
      kind: "execute",
      status: "in_progress",
    });
    await untilCancelled(sessionId);
    // ACP: after a cancel the agent answers pending permission requests `cancelled`; ask one to see it.
    const late = await client.request("session/request_permission", {
      sessionId,
      toolCall: { toolCallId: "t4", title: "Keep going" },
      options: [{ optionId: "go", name: "Allow", kind: "allow_once" }],
    });
    log("late-permission", { outcome: late.outcome });
    return ["cancelled", ""];
  },
  async stubborn() {
    await new Promise(() => undefined);
  },
  async exit(client, sessionId) {
    await say(client, sessionId, "about to crash");
    process.stderr.write(`fatal: crashing with token ${process.env.BATON_TURN_TOKEN}\n`);
    process.exit(3);
  },
  async garbage(client, sessionId) {
    await say(client, sessionId, "about to print garbage");
    process.stdout.write(`this is not json ${process.env.BATON_TURN_TOKEN}\n`);
    await new Promise(() => undefined);
  },
  async empty() {
    return ["end_turn", ""];
  },
  async refusal(client, sessionId) {
    await say(client, sessionId, "I will not");
    return ["refusal", "I will not"];
  },
  async leak(client, sessionId) {
    const token = process.env.BATON_TURN_TOKEN;
    await update(client, sessionId, {
      sessionUpdate: "tool_call",
      toolCallId: "t5",
      title: `curl -H 'Authorization: ${token}'`,
      rawInput: { command: `echo ${token}`, [token]: token },
    });
    // Split across chunks: only the sanitised whole finds it.
    await say(client, sessionId, `the token is ${token.slice(0, 10)}`);
    await say(client, sessionId, `${token.slice(10)} indeed`);
    return ["end_turn", `the token is ${token} indeed`];
  },
  async echo(client, sessionId, prompt) {
    const text = prompt.map((block) => block.text).join("\n---\n");
    await say(client, sessionId, text);
    return ["end_turn", text];
  },
  async env(client, sessionId) {
    const text = JSON.stringify(Object.keys(process.env).sort());
    await say(client, sessionId, text);
    return ["end_turn", text];
  },
  async many(client, sessionId) {
    for (let i = 0; i < 200; i++)
      await update(client, sessionId, {
        sessionUpdate: "tool_call",
        toolCallId: `m${i}`,
        title: `step ${i} ${"x".repeat(200)}`,
      });
    await say(client, sessionId, "many done");
    return ["end_turn", "many done"];
  },
  async ask(client, sessionId) {
    await callBatonTool(sessionId, "ask_user", { question: "Which database should the fix target?" });
    await say(client, sessionId, "I need this before I edit anything.");
    return ["end_turn", "asked"];
  },
  async askonly(_client, sessionId) {
    await callBatonTool(sessionId, "ask_user", { question: "Should I also update the docs?" });
    return ["end_turn", ""];
  },
  async pr(client, sessionId) {
    await callBatonTool(sessionId, "open_pull_request", { title: "Fix the flaky login test", draft: true });
    await say(client, sessionId, "Opened the pull request.");
    return ["end_turn", "pr"];
  },
  async change(client, sessionId, prompt) {
    const text = prompt.map((block) => block.text ?? "").join("\n");
    const line = [...text.matchAll(/^change-spec: (.*)$/gm)].at(-1)?.[1] ?? "{}";
    const spec = JSON.parse(
      line
        .replaceAll("$HOME", process.env.HOME ?? "")
        .replaceAll("$BATON_TURN_TOKEN", process.env.BATON_TURN_TOKEN ?? ""),
    );
    const root = process.env.BATON_CHECKOUT_ROOT ?? join(process.env.HOME ?? "", "checkouts");
    const checkout = join(root, spec.repo);
    if (spec.clone !== false && !existsSync(join(checkout, ".git")))
      execFileSync("git", ["clone", "--quiet", process.env.BATON_GIT_URL, checkout], { stdio: "ignore" });
    const write = (base, files) => {
      for (const [path, content] of Object.entries(files ?? {})) {
        mkdirSync(dirname(join(base, path)), { recursive: true });
        writeFileSync(join(base, path), content);
      }
    };
    if (spec.clone !== false) write(checkout, spec.files);
    write(process.env.HOME ?? "", spec.homeFiles);
    if (spec.commit) {
      const git = (args) => execFileSync("git", ["-C", checkout, ...args], { stdio: "ignore" });
      git(["add", "--all"]);
      git(["-c", "user.name=Agent", "-c", "user.email=agent@example.invalid", "commit", "-qm", spec.commit]);
    }
    await callBatonTool(sessionId, "open_pull_request", spec.pr);
    await say(client, sessionId, "Changed it and asked for the pull request.");
    return ["end_turn", "changed"];
  },
  async long(client, sessionId) {
    for (let i = 0; i < 30; i++) await say(client, sessionId, "y".repeat(5000));
    return ["end_turn", "long"];
  },
};

if (ACP_AGENT_MODE === "garbage-at-start") process.stdout.write("Starting the agent, please wait...\n");

const app = acp
  .agent({ name: "scripted-test-agent" })
  .onRequest("initialize", async ({ params }) => {
    log("initialize", { params });
    if (ACP_AGENT_MODE === "no-init") await new Promise(() => undefined);
    return {
      protocolVersion: ACP_AGENT_MODE === "version-2" ? 2 : 1,
      agentCapabilities: { loadSession: ACP_AGENT_LOAD === "1" },
      agentInfo: { name: "scripted-test-agent", version: "1.0.0" },
    };
  })
  .onRequest("session/new", ({ params }) => {
    const sessionId = `sess-${process.pid}-${history.size + 1}`;
    log("session/new", { params, sessionId });
    history.set(sessionId, []);
    servers.set(sessionId, params.mcpServers ?? []);
    return { sessionId };
  })
  .onRequest("session/load", async ({ params, client }) => {
    log("session/load", { sessionId: params.sessionId });
    if (!existsSync(sessionFile(params.sessionId))) throw acp.RequestError.sessionNotFound(params.sessionId);
    const past = JSON.parse(readFileSync(sessionFile(params.sessionId), "utf8"));
    history.set(params.sessionId, past);
    servers.set(params.sessionId, params.mcpServers ?? []);
    for (const entry of past)
      await update(client, params.sessionId, {
        sessionUpdate: entry.role === "user" ? "user_message_chunk" : "agent_message_chunk",
        content: { type: "text", text: entry.text },
      });
    return {};
  })
  .onRequest("session/set_mode", ({ params }) => {
    log("session/set_mode", { params });
    if (!SESSION_MODES.includes(params.modeId))
      throw acp.RequestError.invalidParams({ modeId: params.modeId }, `no mode ${params.modeId}`);
    return {};
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const last = params.prompt.at(-1)?.text ?? "";
    log("session/prompt", { sessionId: params.sessionId, blocks: params.prompt.length, last });
    // A fresh session's prompt carries the conversation so far: only the new messages' word counts.
    const newest = last.split(/The new messages?:\n\n/).at(-1);
    const word = [...newest.matchAll(/#([a-z]+)/g)].at(-1)?.[1];
    const behaviour =
      BEHAVIOURS[word] ??
      (async (c, s) => {
        const text = `ok: ${last.trim().split("\n").at(-1)}`;
        await say(c, s, text);
        return ["end_turn", text];
      });
    const [stopReason, reply] = await behaviour(client, params.sessionId, params.prompt);
    const past = history.get(params.sessionId) ?? [];
    past.push({ role: "user", text: last }, { role: "agent", text: reply });
    history.set(params.sessionId, past);
    save(params.sessionId);
    await sleep(0);
    return { stopReason };
  })
  .onNotification("session/cancel", ({ params }) => {
    log("session/cancel", { sessionId: params.sessionId });
    cancelled.get(params.sessionId)?.();
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
