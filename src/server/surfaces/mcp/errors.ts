// The MCP endpoint's refusals before the SDK sees a request (Origin, token, rate budget, body bound, method): an
// HTTP status with a JSON-RPC error body and no id (the body is not read yet, or not at all), and the request id
// header every answer of the service carries. Reasons say what to fix and never carry a token.
import { HEADERS } from "../../../transport/wire.js";
import { HttpError } from "../http/http-error.js";
import { issuerOf } from "../oauth/provider.js";
import { WELL_KNOWN } from "../oauth/wire.js";
import type { McpDeps } from "./deps.js";
import { MCP_GATE_ERRORS, MCP_HEADERS, MCP_PATH } from "./wire.js";

export class McpGateError extends HttpError {
  constructor(
    status: number,
    readonly rpcCode: number,
    reason: string,
    headers: Record<string, string> = {},
  ) {
    super(status, `mcp_${rpcCode}`, reason, headers);
  }

  override toResponse(requestId: string): Response {
    return new Response(
      JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: this.rpcCode, message: this.reason } }),
      {
        status: this.status,
        headers: { "content-type": "application/json", ...this.headers, [HEADERS.requestId]: requestId },
      },
    );
  }
}

/** RFC 9728: where a client finds the authorization server for this resource. */
export const resourceMetadataUrl = (deps: McpDeps): string =>
  `${issuerOf(deps)}${WELL_KNOWN.protectedResource}${MCP_PATH}`;

export const forbiddenOrigin = (reason: string) =>
  new McpGateError(403, MCP_GATE_ERRORS.forbiddenOrigin, reason);

export const unauthorized = (deps: McpDeps, reason: string) =>
  new McpGateError(401, MCP_GATE_ERRORS.unauthorized, reason, {
    [MCP_HEADERS.wwwAuthenticate]: `Bearer resource_metadata="${resourceMetadataUrl(deps)}"`,
  });

export const overBudget = (limit: number, retryAfterSeconds: number) =>
  new McpGateError(
    429,
    MCP_GATE_ERRORS.rateLimited,
    `over the MCP budget of ${limit} calls a minute for this token; retry after ${retryAfterSeconds} s`,
    { [MCP_HEADERS.retryAfter]: String(retryAfterSeconds) },
  );

/** JSON-RPC's "Invalid Request": a batch where the version has none, or one over the bound. */
export const batchRefused = (reason: string) => new McpGateError(400, -32600, reason);

export const tooLarge = (reason: string) => new McpGateError(413, MCP_GATE_ERRORS.payloadTooLarge, reason);

export const methodNotAllowed = () =>
  new McpGateError(
    405,
    MCP_GATE_ERRORS.methodNotAllowed,
    "Method not allowed: this endpoint has no event stream and no session; POST JSON-RPC requests",
    { [MCP_HEADERS.allow]: "POST" },
  );
