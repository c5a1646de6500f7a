// Baton's MCP tool server for the coding agent in its box, over stdio on the official SDK: each tool call is
// validated, appended to the turn-requests file as one JSON line, and answered with what happens next. The
// service acts on the file when the turn ends (readTurnRequests); nothing here talks to the service.
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { isBatonError } from "../errors.js";
import { appendFileBoundedSync } from "../safefs/index.js";
import { AGENT_TOOLS } from "./tools.js";
import { type AgentToolCall, renderTurnRequest } from "./turn-requests.js";
import { AGENT_TOOLS_LIMITS, AGENT_TOOLS_SERVER_NAME } from "./wire.js";

export interface AgentToolsServerOptions {
  requestsFile: string;
  version: string;
  now: () => Date;
}

interface ToolAnswer {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: boolean;
}

/** One server instance with both tools; the SDK makes one per connection. */
export function buildAgentToolsServer(options: AgentToolsServerOptions): McpServer {
  const server = new McpServer(
    { name: AGENT_TOOLS_SERVER_NAME, version: options.version },
    { capabilities: { tools: { listChanged: false } } },
  );
  const record = (call: AgentToolCall, answer: string): ToolAnswer => {
    try {
      appendFileBoundedSync(options.requestsFile, renderTurnRequest(call, options.now()), {
        maxBytes: AGENT_TOOLS_LIMITS.fileBytes,
      });
    } catch (error) {
      if (!isBatonError(error)) throw error;
      return {
        content: [
          {
            type: "text",
            text: `Baton could not record this request (${error.message}). Say so in your reply to the user instead.`,
          },
        ],
        isError: true,
      };
    }
    return { content: [{ type: "text", text: answer }] };
  };
  const { ask_user, open_pull_request } = AGENT_TOOLS;
  server.registerTool(
    "ask_user",
    {
      title: ask_user.title,
      description: ask_user.description,
      inputSchema: ask_user.inputSchema,
      annotations: { title: ask_user.title, ...ask_user.annotations },
    },
    async (input) => record({ tool: "ask_user", input }, ask_user.answer(input)),
  );
  server.registerTool(
    "open_pull_request",
    {
      title: open_pull_request.title,
      description: open_pull_request.description,
      inputSchema: open_pull_request.inputSchema,
      annotations: { title: open_pull_request.title, ...open_pull_request.annotations },
    },
    async (input) => record({ tool: "open_pull_request", input }, open_pull_request.answer(input)),
  );
  return server;
}

export interface ServeAgentToolsOptions extends AgentToolsServerOptions {
  stdin: Readable;
  stdout: Writable;
  /** Errors outside any call (a malformed or over-long message): reported, never written to stdout. */
  onError: (error: Error) => void;
}

/** How the connection ended: the agent closed stdin, or the server closed it after an error it reported. */
export type AgentToolsEnd = "closed_by_agent" | "closed_on_error";

/**
 * Serves the tools on the given streams until the agent closes stdin, or until a message longer than
 * AGENT_TOOLS_LIMITS.messageBytes arrives (the SDK's transport refuses to buffer it and closes the connection,
 * reporting why through onError). Both MCP eras are served: agents' own SDKs open with `initialize` today.
 */
export function serveAgentTools(options: ServeAgentToolsOptions): Promise<AgentToolsEnd> {
  const { stdin } = options;
  const transport = new StdioServerTransport(stdin, options.stdout, {
    maxBufferSize: AGENT_TOOLS_LIMITS.messageBytes,
  });
  return new Promise((resolve) => {
    serveStdio(() => buildAgentToolsServer(options), { transport, onerror: options.onError });
    // serveStdio owns the transport and has set its onclose by now; chain ours after it to learn the end.
    const close = transport.onclose;
    transport.onclose = () => {
      close?.();
      resolve(stdin.readableEnded || stdin.destroyed ? "closed_by_agent" : "closed_on_error");
    };
  });
}
