// The fake model APIs real agents are tested against (src/testing/fake-models): a script's intents become the
// tools each agent offered, by the names and argument shapes real agents send (Claude Code's and Codex's as read
// from their requests; Gemini CLI's and opencode's from their tool names, not yet run against the fakes); the Anthropic Messages and OpenAI Responses fakes stream the events their SDKs read, record every
// request with its key header, answer side calls that offer no tools with plain text, and serve TLS when asked.
import { request } from "node:https";
import { afterEach, describe, expect, it } from "vitest";
import { generateCa } from "../../../src/proxy/ca/authority.js";
import { issueLeafPem } from "../../../src/proxy/ca/leaves.js";
import {
  type FakeModel,
  mapIntent,
  NoToolForIntent,
  type OfferedTool,
  SCRIPT_ENDED_TEXT,
  SIDE_CALL_TEXT,
  startFakeAnthropic,
  startFakeOpenAIResponses,
} from "../../../src/testing/fake-models/index.js";

const fn = (name: string, properties: string[] = [], extra: Partial<OfferedTool> = {}): OfferedTool => ({
  name,
  type: "function",
  schema: { properties: Object.fromEntries(properties.map((key) => [key, { type: "string" }])) },
  ...extra,
});

const CLAUDE = [
  fn("Bash", ["command", "description", "timeout"]),
  fn("Read", ["file_path", "offset", "limit"]),
  fn("Write", ["file_path", "content"]),
  fn("Edit", ["file_path", "old_string", "new_string"]),
  fn("mcp__baton__open_pull_request", ["title", "body", "draft"]),
];
const CODEX = [
  fn("exec_command", ["cmd", "workdir"]),
  { name: "apply_patch", type: "custom" } as OfferedTool,
  fn("open_pull_request", ["title"], { namespace: "mcp__baton" }),
];
const GEMINI = [
  fn("run_shell_command", ["command", "description"]),
  fn("read_file", ["absolute_path"]),
  fn("write_file", ["file_path", "content"]),
  fn("replace", ["file_path", "old_string", "new_string"]),
  fn("baton__open_pull_request", ["title"]),
];
const OPENCODE = [
  fn("bash", ["command", "description"]),
  fn("read", ["filePath"]),
  fn("write", ["filePath", "content"]),
  fn("edit", ["filePath", "oldString", "newString"]),
  fn("baton_open_pull_request", ["title"]),
];

describe("a script's intents map onto the tools the agent offered", () => {
  it.each([
    ["Claude Code", CLAUDE, { name: "Bash", type: "function", args: { command: "npm test" } }],
    ["Codex", CODEX, { name: "exec_command", type: "function", args: { cmd: "npm test" } }],
    ["Gemini CLI", GEMINI, { name: "run_shell_command", type: "function", args: { command: "npm test" } }],
    ["opencode", OPENCODE, { name: "bash", type: "function", args: { command: "npm test" } }],
  ])("run a shell command: %s", (_, tools, expected) => {
    expect(mapIntent({ kind: "shell", command: "npm test" }, tools)).toEqual(expected);
  });

  it("a shell tool taking argv gets bash -lc; a required description is filled", () => {
    const argv = { ...fn("shell"), schema: { properties: { command: { type: "array" } } } };
    expect(mapIntent({ kind: "shell", command: "ls" }, [argv])).toEqual({
      name: "shell",
      type: "function",
      args: { command: ["bash", "-lc", "ls"] },
    });
    const described = {
      ...fn("Bash", ["command", "description"]),
      schema: { ...fn("Bash", ["command"]).schema, required: ["command", "description"] },
    };
    expect(mapIntent({ kind: "shell", command: "ls" }, [described])).toEqual({
      name: "Bash",
      type: "function",
      args: { command: "ls", description: "Run ls" },
    });
  });

  it.each([
    ["Claude Code", CLAUDE, { name: "Read", type: "function", args: { file_path: "/w/README.md" } }],
    [
      "Codex (no read tool: cat)",
      CODEX,
      { name: "exec_command", type: "function", args: { cmd: "cat '/w/README.md'" } },
    ],
    ["Gemini CLI", GEMINI, { name: "read_file", type: "function", args: { absolute_path: "/w/README.md" } }],
    ["opencode", OPENCODE, { name: "read", type: "function", args: { filePath: "/w/README.md" } }],
  ])("read a file: %s", (_, tools, expected) => {
    expect(mapIntent({ kind: "read", path: "/w/README.md" }, tools)).toEqual(expected);
  });

  it.each([
    [
      "Claude Code",
      CLAUDE,
      { name: "Edit", type: "function", args: { file_path: "/w/R", old_string: "a", new_string: "b" } },
    ],
    [
      "Gemini CLI",
      GEMINI,
      { name: "replace", type: "function", args: { file_path: "/w/R", old_string: "a", new_string: "b" } },
    ],
    [
      "opencode",
      OPENCODE,
      { name: "edit", type: "function", args: { filePath: "/w/R", oldString: "a", newString: "b" } },
    ],
    [
      "Codex (a freeform apply_patch)",
      CODEX,
      {
        name: "apply_patch",
        type: "custom",
        input: "*** Begin Patch\n*** Update File: /w/R\n@@\n-a\n+b\n*** End Patch\n",
      },
    ],
  ])("edit a file: %s", (_, tools, expected) => {
    expect(mapIntent({ kind: "edit", path: "/w/R", oldText: "a", newText: "b" }, tools)).toEqual(expected);
  });

  it("write a file: a Write tool, else apply_patch replacing the file (a function apply_patch takes input)", () => {
    expect(mapIntent({ kind: "write", path: "/w/N", content: "x\ny\n" }, CLAUDE)).toEqual({
      name: "Write",
      type: "function",
      args: { file_path: "/w/N", content: "x\ny\n" },
    });
    expect(
      mapIntent({ kind: "write", path: "/w/N", content: "x\ny\n" }, [fn("apply_patch", ["input"])]),
    ).toEqual({
      name: "apply_patch",
      type: "function",
      args: { input: "*** Begin Patch\n*** Delete File: /w/N\n*** Add File: /w/N\n+x\n+y\n*** End Patch\n" },
    });
  });

  it.each([
    [
      "Claude Code's mcp__<server>__<tool>",
      CLAUDE,
      { name: "mcp__baton__open_pull_request", type: "function" },
    ],
    ["Codex's namespace", CODEX, { name: "open_pull_request", namespace: "mcp__baton", type: "function" }],
    ["<server>__<tool>", GEMINI, { name: "baton__open_pull_request", type: "function" }],
    ["<server>_<tool>", OPENCODE, { name: "baton_open_pull_request", type: "function" }],
  ])("call an MCP tool: %s", (_, tools, expected) => {
    expect(mapIntent({ kind: "mcp", tool: "open_pull_request", args: { title: "T" } }, tools)).toEqual({
      ...expected,
      args: { title: "T" },
    });
  });

  it("an intent no offered tool fits is an error naming the tools offered", () => {
    expect(() => mapIntent({ kind: "mcp", tool: "ask_user", args: {} }, CLAUDE)).toThrow(NoToolForIntent);
    expect(() => mapIntent({ kind: "shell", command: "ls" }, [])).toThrow(/no shell tool among \(none\)/);
  });
});

/** Server-sent events as [type, data] pairs. */
function parseEvents(text: string): [string, Record<string, unknown>][] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const type = /^event: (.+)$/m.exec(block)![1]!;
      return [type, JSON.parse(/^data: (.+)$/m.exec(block)![1]!)];
    });
}

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${fake!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("the Anthropic Messages fake", () => {
  it("streams a tool_use whose input arrives as input_json_delta pieces, then text, then the script's end", async () => {
    fake = await startFakeAnthropic({
      script: [{ call: { kind: "shell", command: "npm test" } }, { text: "Done." }],
    });
    const tools = [{ name: "Bash", input_schema: { properties: { command: { type: "string" } } } }];
    const first = parseEvents(
      await (
        await post(
          "/v1/messages?beta=true",
          { model: "m", stream: true, tools, messages: [] },
          { "x-api-key": "k1" },
        )
      ).text(),
    );
    expect(first.map(([type]) => type)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(first[2]![1]).toMatchObject({ content_block: { type: "tool_use", name: "Bash", input: {} } });
    const json = first
      .filter(([type]) => type === "content_block_delta")
      .map(([, data]) => (data.delta as { partial_json: string }).partial_json)
      .join("");
    expect(JSON.parse(json)).toEqual({ command: "npm test" });
    expect(first[6]![1]).toMatchObject({ delta: { stop_reason: "tool_use" } });

    const second = parseEvents(
      await (await post("/v1/messages", { stream: true, tools, messages: [] })).text(),
    );
    expect(second[2]![1]).toMatchObject({ content_block: { type: "text" } });
    expect(second[3]![1]).toMatchObject({ delta: { type: "text_delta", text: "Done." } });
    expect(second[5]![1]).toMatchObject({ delta: { stop_reason: "end_turn" } });

    const third = await (await post("/v1/messages", { stream: false, tools, messages: [] })).json();
    expect(third).toMatchObject({
      type: "message",
      content: [{ type: "text", text: SCRIPT_ENDED_TEXT }],
      stop_reason: "end_turn",
    });
    expect(fake.requests.map((r) => [r.path, r.step, r.headers["x-api-key"]])).toEqual([
      ["/v1/messages?beta=true", 0, "k1"],
      ["/v1/messages", 1, undefined],
      ["/v1/messages", null, undefined],
    ]);
  });

  it("answers a call without tools with plain text (not a step), JSON when not streamed; counts tokens", async () => {
    fake = await startFakeAnthropic({ script: [{ text: "never" }] });
    const side = await (
      await post("/v1/messages", { model: "m", messages: [{ role: "user", content: "title?" }] })
    ).json();
    expect(side).toMatchObject({ role: "assistant", content: [{ type: "text", text: SIDE_CALL_TEXT }] });
    expect(await (await post("/v1/messages/count_tokens", {})).json()).toEqual({ input_tokens: 100 });
    expect((await post("/v1/other", {})).status).toBe(404);
    expect(fake.requests.map((r) => r.step)).toEqual([undefined, undefined, undefined]);
    expect(fake.requests[0]!.body).toMatchObject({ messages: [{ content: "title?" }] });
  });

  it("a step no offered tool fits is answered 400 (not retried) and recorded", async () => {
    fake = await startFakeAnthropic({
      script: [{ call: { kind: "mcp", tool: "open_pull_request", args: {} } }],
    });
    const answer = await post("/v1/messages", { stream: true, tools: [{ name: "Bash" }], messages: [] });
    expect(answer.status).toBe(400);
    expect(fake.requests[0]!.error).toMatch(/no MCP tool open_pull_request among Bash/);
  });

  it("serves HTTPS with the given key and certificate", async () => {
    const ca = await generateCa();
    const leaf = await issueLeafPem(ca, ["api.anthropic.com", "127.0.0.1"]);
    fake = await startFakeAnthropic({ script: [], tls: { key: leaf.keyPem, cert: leaf.certPem } });
    expect(fake.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const body = await new Promise<string>((resolve, reject) => {
      const req = request(
        `${fake!.url}/v1/messages`,
        {
          method: "POST",
          ca: ca.certPem,
          servername: "api.anthropic.com",
          headers: { "content-type": "application/json" },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve(text));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify({ messages: [] }));
    });
    expect(JSON.parse(body)).toMatchObject({ content: [{ text: SIDE_CALL_TEXT }] });
  });
});

describe("the OpenAI Responses fake", () => {
  const tools = [
    { type: "function", name: "exec_command", parameters: { properties: { cmd: { type: "string" } } } },
    { type: "custom", name: "apply_patch" },
    {
      type: "namespace",
      name: "mcp__baton",
      tools: [{ type: "function", name: "open_pull_request", parameters: {} }],
    },
    { type: "web_search" },
  ];

  it("streams a function call, a freeform call, an MCP call in its namespace and text, as Codex reads them", async () => {
    fake = await startFakeOpenAIResponses({
      script: [
        { call: { kind: "shell", command: "npm test" } },
        { call: { kind: "edit", path: "R", oldText: "a", newText: "b" } },
        { call: { kind: "mcp", tool: "open_pull_request", args: { title: "T" } } },
        { text: "Done." },
      ],
    });
    const send = async () =>
      parseEvents(
        await (
          await post(
            "/v1/responses",
            { model: "m", stream: true, tools, input: [] },
            { authorization: "Bearer k2" },
          )
        ).text(),
      );
    const shell = await send();
    expect(shell.map(([type]) => type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(shell.map(([, data]) => data.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const done = shell[5]![1].item as Record<string, string>;
    expect(done).toMatchObject({ type: "function_call", name: "exec_command", status: "completed" });
    expect(JSON.parse(done.arguments!)).toEqual({ cmd: "npm test" });
    expect(shell[3]![1]).toMatchObject({ item_id: done.id, output_index: 0 });
    expect(shell[6]![1]).toMatchObject({
      response: { status: "completed", output: [done], usage: { total_tokens: 120 } },
    });

    const patch = await send();
    expect(patch.map(([type]) => type)).toContain("response.custom_tool_call_input.delta");
    expect(patch[5]![1].item).toMatchObject({
      type: "custom_tool_call",
      name: "apply_patch",
      input: expect.stringContaining("*** Update File: R"),
    });

    const mcp = await send();
    expect(mcp[5]![1].item).toMatchObject({
      type: "function_call",
      name: "open_pull_request",
      namespace: "mcp__baton",
      arguments: '{"title":"T"}',
    });

    const text = await send();
    expect(text.map(([type]) => type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(text[4]![1]).toMatchObject({ delta: "Done." });
    expect(text[7]![1].item).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "Done." }],
    });
    expect(fake.requests.map((r) => [r.step, r.headers.authorization])).toEqual([
      [0, "Bearer k2"],
      [1, "Bearer k2"],
      [2, "Bearer k2"],
      [3, "Bearer k2"],
    ]);
    expect(fake.requests[0]!.tools).toEqual(["exec_command", "apply_patch", "mcp__baton/open_pull_request"]);
  });

  it("a call without function tools gets plain text and takes no step; non-streamed is one JSON response", async () => {
    fake = await startFakeOpenAIResponses({ script: [{ text: "never" }] });
    const side = await (
      await post("/v1/responses", { stream: false, tools: [{ type: "web_search" }], input: [] })
    ).json();
    expect(side).toMatchObject({
      status: "completed",
      output: [{ type: "message", content: [{ text: SIDE_CALL_TEXT }] }],
    });
    expect(fake.requests[0]!.step).toBeUndefined();
  });
});
