// The MCP endpoint's wire constants (reference section 4 "MCP endpoint", 7, 8 and 9.3): its path, the protocol
// versions of both eras, the JSON-RPC error codes of our own gates, the rate budget and the body bound. Routes,
// tests and docs import these; no other file spells them.
import { RESOURCES } from "../oauth/wire.js";

export const MCP_PATH = RESOURCES.mcp;

/** The modern era (no initialization handshake; a `_meta` envelope on every request). */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";
/** The legacy era's versions, newest first: an unknown version negotiates to the first. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;

/**
 * Every version the endpoint serves, newest first: what `server/discover` and the -32022 error list (reference:
 * "listing all supported versions"), though the SDK lists only the modern one.
 */
/** The versions whose JSON-RPC allowed batches (2025-06-18 removed them; the modern era never had them). */
export const LEGACY_BATCH_VERSIONS = ["2025-03-26", "2024-11-05"] as const;

export const SUPPORTED_PROTOCOL_VERSIONS = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS] as const;

/** The server's name and title; its version is the package's (server.ts reads it). */
export const SERVER_NAME = { name: "baton", title: "Baton" } as const;

/**
 * JSON-RPC codes of the answers our gates give before the SDK sees a request. The SDK's own (-32020, -32022,
 * -32602, -32601, -32600, -32700) are its to answer; these are server-defined (-32000 to -32099).
 */
export const MCP_GATE_ERRORS = {
  /** 403: the Origin header is not an HTTPS origin or an HTTP loopback origin. The SDK's Origin check uses it. */
  forbiddenOrigin: -32000,
  /** 401: the bearer token is missing, unknown, expired, revoked or issued for another resource. */
  unauthorized: -32001,
  /** 429: over the endpoint's budget; wait for Retry-After. */
  rateLimited: -32003,
  /** 413: the request body is over the bound. */
  payloadTooLarge: -32004,
  /** 405: GET and DELETE (no event stream, no session). */
  methodNotAllowed: -32000,
} as const;

export const MCP_LIMITS = {
  /** Every MCP call of a token, polling included, shares one budget (reference section 8 "MCP rate"). */
  callsPerMinute: 120,
  /** A batch (where its version has them) holds at most this many messages, each a call (the SDK's own bound). */
  batchMessages: 100,
  /** A start_task or follow_up carries up to 100,000 characters (6 bytes each JSON-escaped) and the envelope. */
  bodyBytes: 1024 * 1024,
  /** server/discover and tools/list may be kept by the client for an hour (reference rule 3). */
  listCacheTtlMs: 3_600_000,
} as const;

export const MCP_HEADERS = {
  authorization: "authorization",
  origin: "origin",
  accept: "accept",
  retryAfter: "retry-after",
  wwwAuthenticate: "www-authenticate",
  allow: "allow",
  /** Ignored: there is no session and no event stream to resume. */
  sessionId: "mcp-session-id",
  lastEventId: "last-event-id",
  cookie: "cookie",
  protocolVersion: "mcp-protocol-version",
} as const;
