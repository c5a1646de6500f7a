// A fake of the Anthropic Messages API (`POST /v1/messages`, also `?beta=true` as Claude Code sends it), streamed
// (`stream: true`: message_start, content_block_start/delta/stop for text and for tool_use with input_json_delta,
// message_delta with the stop reason, message_stop) or as one JSON message. Requests that offer tools take the
// script's next step; the others (titles, quota checks) get short plain text. Token counting answers a count.
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { ScriptCursor, type ScriptStep, SIDE_CALL_TEXT } from "./script.js";
import {
  type FakeModel,
  type FakeModelOptions,
  type RecordedRequest,
  sendEvents,
  sendJson,
  startFakeServer,
} from "./server.js";
import { mapIntent, type OfferedTool } from "./tool-mapping.js";

export interface FakeAnthropicOptions extends FakeModelOptions {
  script: readonly ScriptStep[];
}

type Block =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

interface AnthropicTool {
  name: string;
  input_schema?: OfferedTool["schema"];
  type?: string;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`;

/** The fake's base URL is its `url` (Claude Code's ANTHROPIC_BASE_URL has no `/v1`). */
export function startFakeAnthropic(options: FakeAnthropicOptions): Promise<FakeModel> {
  const cursor = new ScriptCursor(options.script);
  return startFakeServer(options, (record, res) => {
    const path = record.path.split("?")[0];
    if (record.method === "POST" && path === "/v1/messages/count_tokens")
      return sendJson(res, 200, { input_tokens: 100 });
    if (record.method !== "POST" || path !== "/v1/messages")
      return sendJson(res, 404, {
        type: "error",
        error: { type: "not_found_error", message: `no ${path} here` },
      });
    const body = (record.body ?? {}) as { model?: string; stream?: boolean; tools?: AnthropicTool[] };
    const tools = (body.tools ?? []).filter((tool) => typeof tool.name === "string");
    const block = answer(record, tools, cursor);
    respond(res, body.model ?? "claude-sonnet-4-5", block, body.stream === true);
  });
}

function answer(record: RecordedRequest, tools: AnthropicTool[], cursor: ScriptCursor): Block {
  if (tools.length === 0) return { type: "text", text: SIDE_CALL_TEXT };
  record.tools = tools.map((tool) => tool.name);
  const { index, step } = cursor.take();
  record.step = index;
  if ("text" in step) return { type: "text", text: step.text };
  const offered: OfferedTool[] = tools.map((tool) => ({
    name: tool.name,
    type: "function",
    schema: tool.input_schema,
  }));
  const call = mapIntent(step.call, offered);
  if (call.type !== "function") throw new Error(`the Messages API has no ${call.type} tools`);
  return { type: "tool_use", id: id("toolu"), name: call.name, input: call.args };
}

function respond(res: ServerResponse, model: string, block: Block, stream: boolean) {
  const stopReason = block.type === "tool_use" ? "tool_use" : "end_turn";
  const usage = {
    input_tokens: 100,
    output_tokens: 20,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
  const message = { id: id("msg"), type: "message", role: "assistant", model };
  if (!stream)
    return sendJson(res, 200, {
      ...message,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage,
    });
  const json = block.type === "tool_use" ? JSON.stringify(block.input) : "";
  const half = Math.floor(json.length / 2);
  sendEvents(res, [
    {
      type: "message_start",
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage, output_tokens: 1 },
      },
    },
    { type: "ping" },
    ...(block.type === "text"
      ? [
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: block.text } },
        ]
      : [
          { type: "content_block_start", index: 0, content_block: { ...block, input: {} } },
          // In two pieces, as the API streams partial JSON.
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: json.slice(0, half) },
          },
          {
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: json.slice(half) },
          },
        ]),
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 20 },
    },
    { type: "message_stop" },
  ]);
}
