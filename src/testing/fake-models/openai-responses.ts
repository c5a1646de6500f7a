// A fake of the OpenAI Responses API (`POST /v1/responses`, streamed), as Codex reads it: response.created,
// response.output_item.added, then response.function_call_arguments.delta/done (a function call),
// response.custom_tool_call_input.delta/done (a freeform tool such as apply_patch) or response.output_text.delta/done
// (text), response.output_item.done with the whole item, and response.completed with usage. Requests that offer
// tools take the script's next step; the others get short plain text.
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
import { type MappedCall, mapIntent, type OfferedTool } from "./tool-mapping.js";

export interface FakeOpenAIResponsesOptions extends FakeModelOptions {
  script: readonly ScriptStep[];
}

interface ResponsesTool {
  type: string;
  name?: string;
  parameters?: OfferedTool["schema"];
  /** A `namespace` tool's own tools. */
  tools?: ResponsesTool[];
}

/** The offered tools, a namespace's (Codex's MCP servers) flattened with their namespace kept. */
function offeredTools(tools: readonly ResponsesTool[]): OfferedTool[] {
  return tools.flatMap((tool): OfferedTool[] => {
    if (typeof tool.name !== "string") return [];
    if (tool.type === "namespace")
      return (tool.tools ?? []).flatMap((inner) =>
        typeof inner.name === "string"
          ? [{ name: inner.name, namespace: tool.name, type: "function" as const, schema: inner.parameters }]
          : [],
      );
    return [
      { name: tool.name, type: tool.type === "custom" ? "custom" : "function", schema: tool.parameters },
    ];
  });
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`;

/** The fake's base URL for an SDK is `${url}/v1` (Codex's provider `base_url`). */
export function startFakeOpenAIResponses(options: FakeOpenAIResponsesOptions): Promise<FakeModel> {
  const cursor = new ScriptCursor(options.script);
  return startFakeServer(options, (record, res) => {
    const path = record.path.split("?")[0];
    if (record.method === "GET" && path === "/v1/models")
      return sendJson(res, 200, { object: "list", data: [] });
    if (record.method !== "POST" || path !== "/v1/responses")
      return sendJson(res, 404, { error: { type: "invalid_request_error", message: `no ${path} here` } });
    const body = (record.body ?? {}) as { model?: string; stream?: boolean; tools?: ResponsesTool[] };
    respond(
      res,
      body.model ?? "gpt-5-codex",
      answer(record, body.tools ?? [], cursor),
      body.stream !== false,
    );
  });
}

type Answer = { text: string } | { call: MappedCall };

function answer(record: RecordedRequest, tools: readonly ResponsesTool[], cursor: ScriptCursor): Answer {
  const offered = offeredTools(tools);
  if (offered.length === 0) return { text: SIDE_CALL_TEXT };
  record.tools = offered.map((tool) => (tool.namespace ? `${tool.namespace}/${tool.name}` : tool.name));
  const { index, step } = cursor.take();
  record.step = index;
  if ("text" in step) return step;
  return { call: mapIntent(step.call, offered) };
}

type Item = { id: string; type: string } & Record<string, unknown>;

/** The output item, how it is announced (empty, in progress), and the events streaming its content. */
function streamedItem(answer: Answer): { item: Item; added: Item; middle: Record<string, unknown>[] } {
  const at = (item: Item) => ({ item_id: item.id, output_index: 0 });
  if ("text" in answer) {
    const part = { type: "output_text", text: answer.text, annotations: [] };
    const item = { type: "message", id: id("msg"), role: "assistant", status: "completed", content: [part] };
    const parts = { ...at(item), content_index: 0 };
    return {
      item,
      added: { ...item, status: "in_progress", content: [] },
      middle: [
        { type: "response.content_part.added", ...parts, part: { ...part, text: "" } },
        { type: "response.output_text.delta", ...parts, delta: answer.text },
        { type: "response.output_text.done", ...parts, text: answer.text },
        { type: "response.content_part.done", ...parts, part },
      ],
    };
  }
  const { call } = answer;
  if (call.type === "function") {
    const args = JSON.stringify(call.args);
    const item = {
      type: "function_call",
      id: id("fc"),
      call_id: id("call"),
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: args,
      status: "completed",
    };
    return {
      item,
      added: { ...item, status: "in_progress", arguments: "" },
      middle: [
        { type: "response.function_call_arguments.delta", ...at(item), delta: args },
        { type: "response.function_call_arguments.done", ...at(item), arguments: args },
      ],
    };
  }
  const item = {
    type: "custom_tool_call",
    id: id("ctc"),
    call_id: id("call"),
    name: call.name,
    input: call.input,
    status: "completed",
  };
  return {
    item,
    added: { ...item, status: "in_progress", input: "" },
    middle: [
      { type: "response.custom_tool_call_input.delta", ...at(item), delta: call.input },
      { type: "response.custom_tool_call_input.done", ...at(item), input: call.input },
    ],
  };
}

function respond(res: ServerResponse, model: string, answer: Answer, stream: boolean) {
  const { item, added, middle } = streamedItem(answer);
  const response = { id: id("resp"), object: "response", created_at: Math.floor(Date.now() / 1000), model };
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 20,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 120,
  };
  const completed = { ...response, status: "completed", output: [item], usage };
  if (!stream) return sendJson(res, 200, completed);
  const events = [
    { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
    { type: "response.in_progress", response: { ...response, status: "in_progress", output: [] } },
    { type: "response.output_item.added", output_index: 0, item: added },
    ...(middle as { type: string }[]),
    { type: "response.output_item.done", output_index: 0, item },
    { type: "response.completed", response: completed },
  ];
  sendEvents(
    res,
    events.map((event, sequence_number) => ({ ...event, sequence_number })),
  );
}
