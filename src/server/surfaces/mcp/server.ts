// The MCP server instances (no session): the seven tools, built once per process and reused, never per request.
// A tool reads its caller from the request's authInfo (the gates authenticated it; dispatch.ts hands it through
// the SDK), so an instance carries nothing of any caller and may serve one caller after another. The SDK's
// per-request handler asks a factory for an instance that is not serving another exchange: the pool below hands
// out one that is idle, builds one only when every instance is busy, and takes an instance back once its
// exchange has closed. Both eras use buildMcpServer, so their tools cannot drift apart. The server advertises
// tools only, with `listChanged: false` (there is no stream to announce a change on), and lets clients keep
// discovery and the tool list for an hour, privately (reference rule 3).
import { type AuthInfo, McpServer } from "@modelcontextprotocol/server";
import { readVersion } from "../../../version.js";
import { TOOL_INPUTS, type ToolName } from "./tool-inputs.js";
import { runTool } from "./tool-results.js";
import { TOOL_NAMES, TOOLS, type ToolCall } from "./tools.js";
import { LEGACY_PROTOCOL_VERSIONS, MCP_LIMITS, MODERN_PROTOCOL_VERSION, SERVER_NAME } from "./wire.js";

/** The server's identity in every answer: its version is the package's, as `baton --version` prints. */
export const SERVER_INFO = { ...SERVER_NAME, version: readVersion() } as const;

const CACHE_HOUR = { ttlMs: MCP_LIMITS.listCacheTtlMs, cacheScope: "private" } as const;

export type Era = "legacy" | "modern";

/** The authenticated caller as the SDK carries it to a tool (`ctx.http.authInfo`), one per request. */
export const authInfoOf = (call: ToolCall): AuthInfo => ({
  token: call.caller.tokenId,
  clientId: call.caller.kind,
  scopes: [],
  extra: { call },
});

/** The caller of this request; a request without one is the service's fault, never served as anyone. */
export function callOf(authInfo: AuthInfo | undefined): ToolCall {
  const call = (authInfo?.extra as { call?: ToolCall } | undefined)?.call;
  if (!call) throw new Error("an MCP request reached a tool without its authenticated caller");
  return call;
}

/**
 * A legacy instance lists only the legacy versions, newest first, so `initialize` with an unknown version
 * negotiates to the newest legacy one; a modern instance serves the modern version. No caller is bound here.
 */
export function buildMcpServer(era: Era): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    supportedProtocolVersions:
      era === "modern"
        ? [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS]
        : [...LEGACY_PROTOCOL_VERSIONS],
    cacheHints: { "tools/list": CACHE_HOUR, "server/discover": CACHE_HOUR },
  });
  for (const name of TOOL_NAMES) registerTool(server, name);
  return server;
}

function registerTool<N extends ToolName>(server: McpServer, name: N): void {
  const tool = TOOLS[name];
  server.registerTool(
    name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: TOOL_INPUTS[name],
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    },
    // biome-ignore lint/suspicious/noExplicitAny: the SDK infers each tool's arguments from its own schema
    (async (input: any, ctx: { http?: { authInfo?: AuthInfo } }) =>
      runTool(() => tool.run(callOf(ctx.http?.authInfo), input))) as never,
  );
}

/** Idle instances kept per era: enough for the endpoint's usual concurrency; busier moments build more. */
export const IDLE_SERVERS_KEPT = 64;

/**
 * Instances of one era, reused: `take` gives an idle one (or builds one), and an instance comes back only when
 * its transport has closed (the SDK sets `transport` to undefined before calling `onclose`), so an instance never
 * serves two exchanges at once. An instance the SDK closes without ever connecting it (a refusal before dispatch)
 * is simply not returned, and is collected.
 */
export class ServerPool {
  readonly #era: Era;
  /** A set, so an exchange that closes twice cannot put one instance in twice (and out to two requests). */
  readonly #idle = new Set<McpServer>();
  #built = 0;

  constructor(era: Era) {
    this.#era = era;
  }

  /** How many instances this pool has built since the process started. */
  get built(): number {
    return this.#built;
  }

  take(): McpServer {
    for (const idle of this.#idle) {
      this.#idle.delete(idle);
      return idle;
    }
    const server = buildMcpServer(this.#era);
    this.#built++;
    // The SDK wraps this for each exchange and calls it once the exchange's transport is gone.
    server.server.onclose = () => {
      if (server.server.transport === undefined && this.#idle.size < IDLE_SERVERS_KEPT)
        this.#idle.add(server);
    };
    return server;
  }
}

/** One pool per era for the whole process: the instances hold no caller, store or service of their own. */
export const SERVER_POOLS: Readonly<Record<Era, ServerPool>> = {
  modern: new ServerPool("modern"),
  legacy: new ServerPool("legacy"),
};
