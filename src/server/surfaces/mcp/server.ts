// One MCP server instance per request (no session): the seven tools bound to the authenticated caller. Both eras
// use this one factory, so their tools cannot drift apart. The server advertises tools only, with
// `listChanged: false` (there is no stream to announce a change on), and lets clients keep discovery and the
// tool list for an hour, privately (reference rule 3).
import { McpServer } from "@modelcontextprotocol/server";
import { readVersion } from "../../../version.js";
import { TOOL_INPUTS, type ToolName } from "./tool-inputs.js";
import { runTool } from "./tool-results.js";
import { TOOL_NAMES, TOOLS, type ToolCall } from "./tools.js";
import { LEGACY_PROTOCOL_VERSIONS, MCP_LIMITS, MODERN_PROTOCOL_VERSION, SERVER_NAME } from "./wire.js";

/** The server's identity in every answer: its version is the package's, as `baton --version` prints. */
export const SERVER_INFO = { ...SERVER_NAME, version: readVersion() } as const;

const CACHE_HOUR = { ttlMs: MCP_LIMITS.listCacheTtlMs, cacheScope: "private" } as const;

/**
 * A legacy instance lists only the legacy versions, newest first, so `initialize` with an unknown version
 * negotiates to the newest legacy one; a modern instance serves the modern version.
 */
export function buildMcpServer(call: ToolCall, era: "legacy" | "modern"): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    supportedProtocolVersions:
      era === "modern"
        ? [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS]
        : [...LEGACY_PROTOCOL_VERSIONS],
    cacheHints: { "tools/list": CACHE_HOUR, "server/discover": CACHE_HOUR },
  });
  for (const name of TOOL_NAMES) registerTool(server, call, name);
  return server;
}

function registerTool<N extends ToolName>(server: McpServer, call: ToolCall, name: N): void {
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
    (async (input: any) => runTool(() => tool.run(call, input))) as never,
  );
}
