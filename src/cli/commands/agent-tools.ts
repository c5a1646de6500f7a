// `baton agent-tools`: Baton's MCP tool server (ask_user, open_pull_request) on stdin/stdout, started by the
// coding agent in a box from the `mcpServers` entry the service gives it. stdout carries the protocol only;
// anything else goes to stderr, which the agent keeps as the server's log.
import "./zod-jitless.js";
import type { Readable } from "node:stream";
import type { Command } from "commander";
import { serveAgentTools } from "../../agent-tools/serve.js";
import { readAgentToolsFile } from "../../agent-tools/settings.js";
import { readVersion } from "../../version.js";
import type { CommandContext } from "../context.js";
import { writeLine } from "../io.js";

export function declare(command: Command, { io, action }: CommandContext): void {
  command.action(
    action(async () => {
      const requestsFile = readAgentToolsFile(io.env);
      const end = await serveAgentTools({
        requestsFile,
        version: readVersion(),
        now: () => new Date(),
        stdin: io.stdin as Readable,
        stdout: io.stdout,
        onError: (error) => writeLine(io.stderr, `baton agent-tools: ${error.message}`),
      });
      // The reason is on stderr already (onError); exit 1 tells the agent's log the server refused its input.
      return end === "closed_on_error" ? { failed: "invalid_input" } : undefined;
    }),
  );
}
