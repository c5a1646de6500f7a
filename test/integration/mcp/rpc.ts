// JSON-RPC to the MCP endpoint through the public listener's handler (no socket): modern requests carry the
// `_meta` envelope and the matching MCP-Protocol-Version / Mcp-Method / Mcp-Name headers unless a test removes
// or changes them; legacy requests carry none. Every answer is kept so a suite can check no canary left.
import { MCP_PATH, MODERN_PROTOCOL_VERSION } from "../../../src/server/surfaces/mcp/wire.js";
import { type ApiHarness, TOKENS } from "../api/harness.js";

export const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface RpcAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: each test asserts the JSON-RPC shape it expects
  body: any;
}

export interface RpcOptions {
  token?: string | null;
  /** Headers added to (or, with `null`, removed from) the defaults. */
  headers?: Record<string, string | null>;
  method?: "POST" | "GET" | "DELETE";
  /** A raw body instead of the JSON of the message. */
  raw?: string;
}

let nextId = 1;

export function modern(method: string, params: Record<string, unknown> = {}, meta: object = META) {
  return { jsonrpc: "2.0", id: nextId++, method, params: { ...params, _meta: meta } };
}

export function legacy(method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id: nextId++, method, params };
}

export const callTool = (name: string, args: Record<string, unknown> = {}) =>
  modern("tools/call", { name, arguments: args });

/** The headers a modern client sends for `message`. */
export function modernHeaders(message: {
  method: string;
  params?: { name?: unknown };
}): Record<string, string> {
  return {
    "mcp-protocol-version": MODERN_PROTOCOL_VERSION,
    "mcp-method": message.method,
    ...(message.method === "tools/call" ? { "mcp-name": String(message.params?.name) } : {}),
  };
}

export async function rpc(h: ApiHarness, message: unknown, options: RpcOptions = {}): Promise<RpcAnswer> {
  const token = options.token === undefined ? TOKENS.dev : options.token;
  const m = message as { method?: string; params?: { _meta?: unknown; name?: unknown } } | undefined;
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(m?.method && m.params?._meta ? modernHeaders({ method: m.method, params: m.params }) : {}),
  };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  for (const [name, value] of Object.entries(options.headers ?? {}))
    if (value === null) delete headers[name];
    else headers[name] = value;
  const method = options.method ?? "POST";
  const response = await h.app.listeners.public.request(MCP_PATH, {
    method,
    headers,
    ...(method === "POST" ? { body: options.raw ?? JSON.stringify(message) } : {}),
  });
  const text = await response.text();
  h.seen.push({ method, path: MCP_PATH, status: response.status, text, headers: response.headers });
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** A tool's answer: the parsed text content, and whether it is an error. */
export async function tool(h: ApiHarness, name: string, args: Record<string, unknown> = {}, token?: string) {
  const answer = await rpc(h, callTool(name, args), token === undefined ? {} : { token });
  if (answer.status !== 200) throw new Error(`tools/call ${name}: HTTP ${answer.status} ${answer.text}`);
  const result = answer.body.result;
  return { result, isError: result.isError === true, text: result.content[0].text as string };
}
