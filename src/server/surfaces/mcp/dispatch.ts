// Serving one authenticated JSON-RPC POST in its era. The modern era (`2026-07-28`, a `_meta` envelope on every
// request) goes to the SDK's strict handler; a legacy request (no envelope) is answered by a fresh stateless
// Streamable HTTP transport in plain-JSON mode. Both build their server from one factory (server.ts).
// Mcp-Session-Id and Last-Event-ID are dropped before either sees the request: there is no session and no stream.
import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { buildMcpServer } from "./server.js";
import type { ToolCall } from "./tools.js";
import { MCP_HEADERS, MCP_LIMITS, SUPPORTED_PROTOCOL_VERSIONS } from "./wire.js";

const IGNORED_HEADERS = [MCP_HEADERS.sessionId, MCP_HEADERS.lastEventId, MCP_HEADERS.cookie] as const;
const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

export type McpDispatch = (request: Request, body: Uint8Array, call: ToolCall) => Promise<Response>;

const authInfoOf = (call: ToolCall): AuthInfo => ({
  token: call.caller.tokenId,
  clientId: call.caller.kind,
  scopes: [],
  extra: { call },
});

/** The caller the gates authenticated, handed through the SDK as authInfo (the handler is made once). */
function callOf(authInfo: AuthInfo | undefined): ToolCall {
  const call = (authInfo?.extra as { call?: ToolCall } | undefined)?.call;
  if (!call) throw new Error("an MCP request reached the SDK without its authenticated caller");
  return call;
}

export function createDispatch(onerror: (error: Error) => void): McpDispatch {
  const modern = createMcpHandler((ctx) => buildMcpServer(callOf(ctx.authInfo), ctx.era), {
    responseMode: "json",
    legacy: "reject",
    maxRequestBodySize: MCP_LIMITS.bodyBytes,
    onerror,
  });
  return async (raw, body, call) => {
    const request = rebuild(raw, body);
    if (await isLegacyRequest(request, undefined, { maxRequestBodySize: MCP_LIMITS.bodyBytes }))
      return serveLegacy(acceptJson(request), call);
    return listEveryVersion(request, await modern.fetch(request, { authInfo: authInfoOf(call) }));
  };
}

/**
 * The SDK's `server/discover` and its -32022 error list only the modern version, but this endpoint also serves the
 * legacy ones (reference: "listing all supported versions"): those two answers get the full list. Clients pick
 * the first version of theirs in the list, so the legacy entries change no modern client's choice.
 */
async function listEveryVersion(request: Request, response: Response): Promise<Response> {
  const discover = request.headers.get("mcp-method") === "server/discover" && response.status === 200;
  if (!discover && response.status !== 400) return response;
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return response;
  const text = await response.text();
  const rebuilt = (body: string) => {
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };
  let message: {
    result?: { supportedVersions?: unknown };
    error?: { code?: unknown; data?: { supported?: unknown } };
  };
  try {
    message = JSON.parse(text);
  } catch {
    return rebuilt(text);
  }
  const all = [...SUPPORTED_PROTOCOL_VERSIONS];
  if (discover && Array.isArray(message.result?.supportedVersions)) message.result.supportedVersions = all;
  else if (message.error?.code === UNSUPPORTED_VERSION && Array.isArray(message.error.data?.supported))
    message.error.data.supported = all;
  else return rebuilt(text);
  return rebuilt(JSON.stringify(message));
}

/** JSON-RPC's "unsupported protocol version" (the SDK's code). */
const UNSUPPORTED_VERSION = -32022;

/** The request again, from the bounded bytes already read, without the headers the endpoint ignores. */
function rebuild(raw: Request, body: Uint8Array): Request {
  const headers = new Headers(raw.headers);
  for (const name of IGNORED_HEADERS) headers.delete(name);
  headers.delete("content-length");
  return new Request(raw.url, { method: "POST", headers, body: body as NonNullable<RequestInit["body"]> });
}

/**
 * Legacy Streamable HTTP asks clients to accept both JSON and an event stream, and the SDK's transport answers
 * 406 otherwise. This endpoint only ever answers plain JSON (reference: "plain JSON responses; no event
 * stream"), so a client that accepts JSON (or anything, or says nothing) is served.
 */
function acceptJson(request: Request): Request {
  const accept = request.headers.get(MCP_HEADERS.accept) ?? "";
  if (accept.includes("text/event-stream")) return request;
  if (accept !== "" && !/application\/json|\*\/\*|application\/\*/i.test(accept)) return request;
  const headers = new Headers(request.headers);
  headers.set(MCP_HEADERS.accept, BOTH_MEDIA_TYPES);
  return new Request(request, { headers });
}

async function serveLegacy(request: Request, call: ToolCall): Promise<Response> {
  const server = buildMcpServer(call, "legacy");
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { authInfo: authInfoOf(call) });
  } finally {
    await server.close();
  }
}
