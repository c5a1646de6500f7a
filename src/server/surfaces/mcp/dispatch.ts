// Serving one authenticated JSON-RPC POST in its era. The modern era (`2026-07-28`, a `_meta` envelope on every
// request) goes to the SDK's strict handler; a legacy request (no envelope) is answered by a fresh stateless
// Streamable HTTP transport in plain-JSON mode. Both take an instance from the process's pools (server.ts), never
// one built for the request, and hand the caller through the SDK as authInfo. The body the gates read is parsed
// here once and given to the SDK parsed, so neither the era check nor the handler reads, clones or parses it
// again. Mcp-Session-Id and Last-Event-ID are dropped before either sees the request: there is no session and no
// stream.
import {
  createMcpHandler,
  isLegacyRequest,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { authInfoOf, SERVER_POOLS } from "./server.js";
import type { ToolCall } from "./tools.js";
import { MCP_HEADERS, MCP_LIMITS, SUPPORTED_PROTOCOL_VERSIONS } from "./wire.js";

const IGNORED_HEADERS = [MCP_HEADERS.sessionId, MCP_HEADERS.lastEventId, MCP_HEADERS.cookie] as const;
const BOTH_MEDIA_TYPES = "application/json, text/event-stream";

export type McpDispatch = (request: Request, body: Uint8Array, call: ToolCall) => Promise<Response>;

export function createDispatch(onerror: (error: Error) => void): McpDispatch {
  const modern = createMcpHandler((ctx) => SERVER_POOLS[ctx.era].take(), {
    responseMode: "json",
    legacy: "reject",
    maxRequestBodySize: MCP_LIMITS.bodyBytes,
    onerror,
  });
  return async (raw, body, call) => {
    const parsedBody = parseBody(body);
    const request = forwarded(raw, body, parsedBody);
    const authInfo = authInfoOf(call);
    if (
      !carriesModernClaim(parsedBody) &&
      (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: MCP_LIMITS.bodyBytes }))
    )
      return serveLegacy(acceptJson(request, body, parsedBody), parsedBody, call);
    return listEveryVersion(
      request,
      await modern.fetch(request, { authInfo, ...(parsedBody !== undefined && { parsedBody }) }),
    );
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether the SDK's classification would certainly not send this body to the legacy leg, so that classifying it
 * twice (here and in the handler) can be skipped: one message with a method other than `initialize` (legacy
 * unless its claim is valid) and no result or error, whose `params._meta` carries the claim key. The SDK routes
 * every such message to the modern path, whether it serves it or refuses it there (isLegacyRequest: "a request
 * carrying the envelope claim ... false"). Anything else is left to isLegacyRequest.
 */
export function carriesModernClaim(body: unknown): boolean {
  if (!isPlainObject(body) || typeof body.method !== "string" || body.method === "initialize") return false;
  if ("result" in body || "error" in body) return false;
  const meta = isPlainObject(body.params) ? body.params._meta : undefined;
  return isPlainObject(meta) && PROTOCOL_VERSION_META_KEY in meta;
}

/**
 * The body as JSON, or undefined when it is empty or not JSON: the SDK then reads the bytes itself and gives its
 * own answer (a parse error, or the legacy leg for an empty body), as it did before it was handed parsed bodies.
 */
function parseBody(body: Uint8Array): unknown {
  if (body.byteLength === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"));
  } catch {
    return undefined;
  }
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

/**
 * The request the SDK sees: without the headers the endpoint ignores. The gates consumed its body, so when the
 * SDK gets the body parsed the request carries none; otherwise it carries the bounded bytes again.
 */
function forwarded(raw: Request, body: Uint8Array, parsedBody: unknown): Request {
  if (parsedBody !== undefined && !IGNORED_HEADERS.some((name) => raw.headers.has(name))) return raw;
  const headers = new Headers(raw.headers);
  for (const name of IGNORED_HEADERS) headers.delete(name);
  return withHeaders(raw, headers, body, parsedBody);
}

function withHeaders(request: Request, headers: Headers, body: Uint8Array, parsedBody: unknown): Request {
  headers.delete("content-length");
  return new Request(request.url, {
    method: "POST",
    headers,
    ...(parsedBody === undefined && { body: body as NonNullable<RequestInit["body"]> }),
  });
}

/**
 * Legacy Streamable HTTP asks clients to accept both JSON and an event stream, and the SDK's transport answers
 * 406 otherwise. This endpoint only ever answers plain JSON (reference: "plain JSON responses; no event
 * stream"), so a client that accepts JSON (or anything, or says nothing) is served.
 */
function acceptJson(request: Request, body: Uint8Array, parsedBody: unknown): Request {
  const accept = request.headers.get(MCP_HEADERS.accept) ?? "";
  if (accept.includes("text/event-stream")) return request;
  if (accept !== "" && !/application\/json|\*\/\*|application\/\*/i.test(accept)) return request;
  const headers = new Headers(request.headers);
  headers.set(MCP_HEADERS.accept, BOTH_MEDIA_TYPES);
  return withHeaders(request, headers, body, parsedBody);
}

/**
 * A legacy request on a pooled instance and a transport of its own. The transport is closed when the answer is
 * made, which gives the instance back to its pool (never `server.close()`: by then the instance may already be
 * serving someone else's exchange).
 */
async function serveLegacy(request: Request, parsedBody: unknown, call: ToolCall): Promise<Response> {
  const server = SERVER_POOLS.legacy.take();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, {
      authInfo: authInfoOf(call),
      ...(parsedBody !== undefined && { parsedBody }),
    });
  } finally {
    await transport.close();
  }
}
