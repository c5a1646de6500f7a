// `baton agent-tools` as a coding agent meets it: the built CLI started from the entry the ACP adapter passes
// in `session/new` (buildAgentToolsServerEntry), driven by the official MCP client over stdio in both eras.
// Each call lands as one JSON line in the turn-requests file, which readTurnRequests sums up for the service;
// bad input is an MCP tool error that writes nothing. Raw-stdio cases cover what the SDK client cannot send.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AGENT_TOOLS_FILE_ENV,
  AGENT_TOOLS_LIMITS,
  buildAgentToolsServerEntry,
  readTurnRequests,
  TurnRequestSchema,
} from "../../../src/agent-tools/index.js";
import { MODERN_PROTOCOL_VERSION } from "../../../src/server/surfaces/mcp/wire.js";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";

let dir: string;
let requestsFile: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "baton-agent-tools-"));
  requestsFile = join(dir, "turn-requests.jsonl");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const readFileOrNull = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

type Era = "legacy" | "modern";

/** The agent's side: spawn exactly what the mcpServers entry says (Node and the built bin.js are absolute). */
async function connect(era: Era, file: string): Promise<{ client: Client; stderr: () => string }> {
  const entry = buildAgentToolsServerEntry({
    baton: { command: process.execPath, args: [BATON_BIN] },
    requestsFile: file,
  });
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: Object.fromEntries(entry.env.map(({ name, value }) => [name, value])),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = new Client(
    { name: "agent-under-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

const textOf = (result: { content?: unknown }): string =>
  (result.content as { type: string; text: string }[]).map((block) => block.text).join("");

describe.each(["legacy", "modern"] as const)("baton agent-tools through the MCP client, %s era", (era) => {
  let client: Client;
  let stderr: () => string;
  beforeEach(async () => {
    ({ client, stderr } = await connect(era, requestsFile));
  });
  afterEach(async () => {
    await client.close();
    // stderr is the agent's log of the server: nothing went wrong, so nothing is there.
    expect(stderr()).toBe("");
  });

  it("lists ask_user and open_pull_request with their arguments' types, limits and required ones", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["ask_user", "open_pull_request"]);
    const ask = tools.find((tool) => tool.name === "ask_user")!;
    expect(ask.inputSchema).toMatchObject({
      type: "object",
      properties: { question: { type: "string", minLength: 1, maxLength: 10_000 } },
      required: ["question"],
    });
    expect(ask.description).toContain("next message");
    const pr = tools.find((tool) => tool.name === "open_pull_request")!;
    expect(pr.inputSchema).toMatchObject({
      type: "object",
      properties: {
        title: { type: "string", minLength: 1, maxLength: 200 },
        body: { type: "string", maxLength: 60_000 },
        draft: { type: "boolean" },
      },
      required: ["title"],
    });
    expect(pr.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
  });

  it("ask_user records the question and tells the agent to end its turn now", async () => {
    const before = Date.now();
    const result = await client.callTool({
      name: "ask_user",
      arguments: { question: "Postgres or SQLite?" },
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain("End your turn now");
    expect(textOf(result)).toContain("answer will arrive as your next message");
    const lines = readFileSync(requestsFile, "utf8").split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe("");
    const record = TurnRequestSchema.parse(JSON.parse(lines[0]!));
    expect(record).toMatchObject({ tool: "ask_user", question: "Postgres or SQLite?" });
    expect(Date.parse(record.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(record.at)).toBeLessThanOrEqual(Date.now());
    expect(readTurnRequests(readFileSync(requestsFile, "utf8"))).toEqual({
      clarify: { question: "Postgres or SQLite?" },
      skipped: 0,
    });
    expect(statSync(requestsFile).mode & 0o777).toBe(0o600);
  });

  it("open_pull_request records the request, says the service pushes and opens it at the end of the turn with the disclosure as body; the last call wins", async () => {
    const first = await client.callTool({
      name: "open_pull_request",
      arguments: { title: "Fix the parser", body: "Handles CRLF.\n\nRan `npm test`.", draft: true },
    });
    expect(first.isError).toBeFalsy();
    const said = textOf(first);
    expect(said).toContain("when this turn ends, Baton pushes this task's branch");
    expect(said).toContain("as a draft");
    expect(said).toContain("Baton's disclosure");
    expect(said).toContain("followed by your body as notes");
    expect(readTurnRequests(readFileSync(requestsFile, "utf8")).pullRequest).toEqual({
      title: "Fix the parser",
      body: "Handles CRLF.\n\nRan `npm test`.",
      draft: true,
    });

    const second = await client.callTool({
      name: "open_pull_request",
      arguments: { title: "Fix the CSV parser" },
    });
    expect(textOf(second)).not.toContain("as a draft");
    await client.callTool({ name: "ask_user", arguments: { question: "Also the TSV one?" } });
    const text = readFileSync(requestsFile, "utf8");
    expect(
      text
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line).tool),
    ).toEqual(["open_pull_request", "open_pull_request", "ask_user"]);
    expect(readTurnRequests(text)).toEqual({
      clarify: { question: "Also the TSV one?" },
      pullRequest: { title: "Fix the CSV parser", draft: false },
      skipped: 0,
    });
  });

  describe("bad input is a tool error naming the argument, and writes nothing", () => {
    it.each([
      ["ask_user without a question", "ask_user", {}, "question"],
      ["ask_user with an empty question", "ask_user", { question: "" }, "question"],
      ["ask_user with a blank question", "ask_user", { question: "   " }, "question"],
      ["ask_user with a number", "ask_user", { question: 42 }, "question"],
      ["ask_user with 10,001 characters", "ask_user", { question: "q".repeat(10_001) }, "question"],
      ["open_pull_request without a title", "open_pull_request", {}, "title"],
      [
        "open_pull_request with a 201-character title",
        "open_pull_request",
        { title: "t".repeat(201) },
        "title",
      ],
      [
        "open_pull_request with a title of two lines",
        "open_pull_request",
        { title: "two\nlines" },
        "one line",
      ],
      [
        "open_pull_request with a 60,001-character body",
        "open_pull_request",
        { title: "t", body: "b".repeat(60_001) },
        "body",
      ],
      ["open_pull_request with draft a string", "open_pull_request", { title: "t", draft: "yes" }, "draft"],
    ])("%s", async (_case, name, args, names) => {
      const result = await client.callTool({ name, arguments: args as Record<string, unknown> });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`Invalid arguments for tool ${name}`);
      expect(textOf(result)).toContain(names);
      expect(readFileOrNull(requestsFile)).toBeNull();
    });
  });

  it("a hostile huge argument (900,000 characters) is refused quickly, writes nothing, and the server goes on", async () => {
    const started = performance.now();
    const result = await client.callTool({ name: "ask_user", arguments: { question: "x".repeat(900_000) } });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(result.isError).toBe(true);
    expect(textOf(result).length).toBeLessThan(1_000);
    expect(readFileOrNull(requestsFile)).toBeNull();
    const next = await client.callTool({ name: "ask_user", arguments: { question: "Still there?" } });
    expect(next.isError).toBeFalsy();
  });
});

describe("baton agent-tools when the file refuses a record", () => {
  it("a full file (the bound a runaway loop meets) answers a tool error saying so, and grows no further", async () => {
    const almostFull = `${"#".repeat(AGENT_TOOLS_LIMITS.fileBytes - 10)}\n`;
    writeFileSync(requestsFile, almostFull);
    const { client } = await connect("legacy", requestsFile);
    try {
      const result = await client.callTool({ name: "ask_user", arguments: { question: "Room for me?" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain("Baton could not record this request");
      expect(textOf(result)).toContain(`limit of ${AGENT_TOOLS_LIMITS.fileBytes}`);
      expect(readFileSync(requestsFile, "utf8")).toBe(almostFull);
    } finally {
      await client.close();
    }
  });

  it("a file whose folder is gone answers a tool error naming the path", async () => {
    const gone = join(dir, "no-such-folder", "turn-requests.jsonl");
    const { client } = await connect("legacy", gone);
    try {
      const result = await client.callTool({ name: "open_pull_request", arguments: { title: "t" } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(`the folder of ${gone} does not exist`);
    } finally {
      await client.close();
    }
  });
});

/** The server on raw pipes, for what the SDK client never sends; answers its exit code, stdout and stderr. */
function runRaw(
  lines: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BATON_BIN, "agent-tools"], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // A hostile agent keeps its end open: the server must not wait for it to close.
  child.stdin.on("error", () => undefined);
  for (const line of lines) child.stdin.write(`${line}\n`);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

describe("baton agent-tools on raw stdio", () => {
  it("a message longer than 1 MiB closes the connection at once: exit 1, the limit on stderr, nothing written", async () => {
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "ask_user", arguments: { question: "x".repeat(2 * 1024 * 1024) } },
    });
    const run = await runRaw([INITIALIZE, huge], { [AGENT_TOOLS_FILE_ENV]: requestsFile });
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(5_000);
    expect(run.stderr).toContain(
      `baton agent-tools: ReadBuffer exceeded maximum size of ${AGENT_TOOLS_LIMITS.messageBytes} bytes`,
    );
    expect(run.stdout).toContain('"serverInfo":{"name":"baton"');
    expect(readFileOrNull(requestsFile)).toBeNull();
  });
});

describe("baton agent-tools as a command", () => {
  beforeAll(() => {
    // The cases below rely on the variable being absent unless a case sets it.
    expect(process.env[AGENT_TOOLS_FILE_ENV]).toBeUndefined();
  });
  it.each([
    ["unset", {}, "BATON_AGENT_TOOLS_FILE is not set"],
    ["empty", { [AGENT_TOOLS_FILE_ENV]: "" }, "BATON_AGENT_TOOLS_FILE is not set"],
    [
      "relative",
      { [AGENT_TOOLS_FILE_ENV]: "turn-requests.jsonl" },
      "BATON_AGENT_TOOLS_FILE must be an absolute path",
    ],
  ])(
    "refuses to start with the variable %s: exit 1, the message naming it, nothing on stdout",
    async (_what, env, says) => {
      const run = await runBaton(["agent-tools"], { env, input: `${INITIALIZE}\n` });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(says);
      expect(run.stdout).toBe("");
    },
  );

  it("exits 0 once the agent closes stdin, having answered what it was sent", async () => {
    const run = await runBaton(["agent-tools"], {
      env: { [AGENT_TOOLS_FILE_ENV]: requestsFile },
      input: `${INITIALIZE}\n`,
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout.split("\n")[0]!)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: "baton" } },
    });
    expect(run.stderr).toBe("");
  });

  it("is left out of the main help, and its own help says the agent starts it", async () => {
    const main = await runBaton(["--help"]);
    expect(main.exitCode).toBe(0);
    expect(main.stdout).toContain("disclose");
    expect(main.stdout).not.toContain("agent-tools");
    const own = await runBaton(["agent-tools", "--help"]);
    expect(own.exitCode).toBe(0);
    expect(own.stdout).toContain("Usage: baton agent-tools");
    expect(own.stdout).toContain("started by the agent, not by you");
  });
});
