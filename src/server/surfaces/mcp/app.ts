// The hosted MCP endpoint `POST /v1/mcp` (reference section 4 "MCP endpoint"): Streamable HTTP with plain JSON
// answers, no event stream and no session, both protocol eras, seven tools over the public API's domain. The
// gates (gates.ts) run before the SDK sees a byte of the body; GET and DELETE are 405 in both eras.
import { createRoute, z } from "@hono/zod-openapi";
import { quietly } from "../http/console-notices.js";
import { createSurface } from "../http/surface.js";
import type { McpDeps } from "./deps.js";
import { createDispatch } from "./dispatch.js";
import { methodNotAllowed } from "./errors.js";
import { authenticateBearer, checkOrigin, limitCalls, type McpEnv, readBody } from "./gates.js";
import {
  LEGACY_BATCH_VERSIONS,
  LEGACY_PROTOCOL_VERSIONS,
  MCP_GATE_ERRORS,
  MCP_HEADERS,
  MCP_LIMITS,
  MODERN_PROTOCOL_VERSION,
} from "./wire.js";

const JsonRpcMessageSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: "JsonRpcMessage" });

const rpc = (description: string) => ({
  description,
  content: { "application/json": { schema: JsonRpcMessageSchema } },
});

const ROUTE = createRoute({
  method: "post",
  path: "/",
  hide: false,
  summary: `MCP over Streamable HTTP (plain JSON, no session): era ${MODERN_PROTOCOL_VERSION}, or legacy ${LEGACY_PROTOCOL_VERSIONS.join(", ")}`,
  description:
    "Tools: whoami, list_tasks, get_task, start_task, follow_up, get_messages, stop_task; they answer the same JSON as the /v1 routes. A refused tool call is a result with isError: true.",
  security: [{ personalToken: [] }],
  request: { body: { required: true, ...rpc("one JSON-RPC request or notification") } },
  responses: {
    200: rpc("the JSON-RPC response"),
    202: { description: "a notification, accepted" },
    400: rpc(
      `-32020 headers missing or not matching the body; -32022 unsupported version (lists the supported ones); -32602 no clientCapabilities; -32700 not JSON; -32600 a JSON-RPC batch in a version without batches (only ${LEGACY_BATCH_VERSIONS.join(" and ")} have them) or over ${MCP_LIMITS.batchMessages} messages`,
    ),
    401: rpc(
      `${MCP_GATE_ERRORS.unauthorized}: bearer token missing, unknown, expired, revoked or issued for another resource; WWW-Authenticate names the resource metadata`,
    ),
    403: rpc(
      `${MCP_GATE_ERRORS.forbiddenOrigin}: Origin is neither an https origin nor an http loopback origin`,
    ),
    404: rpc("-32601: modern initialize, ping, or an unknown method"),
    406: rpc("Accept names neither JSON nor anything"),
    413: rpc(
      `${MCP_GATE_ERRORS.payloadTooLarge}: the request body is over ${MCP_LIMITS.bodyBytes / 1024 / 1024} MiB`,
    ),
    415: rpc("the body is not application/json"),
    429: {
      ...rpc(
        `${MCP_GATE_ERRORS.rateLimited}: over ${MCP_LIMITS.callsPerMinute} calls a minute for this token (each message of a batch is a call)`,
      ),
      headers: {
        [MCP_HEADERS.retryAfter]: {
          description: "seconds to wait before trying again",
          required: true,
          schema: { type: "integer" as const, minimum: 1 },
        },
      },
    },
  },
});

export function createMcpApp(deps: McpDeps) {
  const app = createSurface<McpEnv["Variables"]>();
  // The SDK warns on the console that JSON mode drops mid-call notifications (ours send none); the service
  // logs through pino and `baton serve --json` owns stdout, so the notice goes to the debug log.
  const dispatch = quietly(deps.logger, "@modelcontextprotocol/server", () =>
    createDispatch((error) =>
      deps.logger.debug({ err: `${error.name}: ${error.message}` }, "mcp request refused"),
    ),
  );
  app.on(["GET", "DELETE"], "/", checkOrigin(), () => {
    throw methodNotAllowed();
  });
  // Documented from ROUTE, but served without hono's body validator: the SDK parses the JSON-RPC itself and
  // answers a malformed message in JSON-RPC terms.
  const { hide: _published, ...documented } = ROUTE;
  app.openAPIRegistry.registerPath(documented);
  app.post("/", checkOrigin(), authenticateBearer(deps), readBody(), limitCalls(deps), async (c) =>
    dispatch(c.req.raw, c.get("mcpBody"), { deps, caller: c.get("caller"), requestId: c.get("requestId") }),
  );
  return app;
}
