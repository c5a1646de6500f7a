// The agent tools' entry in ACP `session/new`'s `mcpServers`, so the adapter never spells the command, the
// variable or the server's name. Shaped as the ACP schema's stdio server (McpServerStdio): name, an absolute
// command, args, and env as a list of {name, value}.
import { posix } from "node:path";
import { BatonError } from "../errors.js";
import { AGENT_TOOLS_COMMAND, AGENT_TOOLS_FILE_ENV, AGENT_TOOLS_SERVER_NAME } from "./wire.js";

export interface AgentToolsServerEntry {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

export interface AgentToolsServerEntryOptions {
  /**
   * How `baton` runs in the box: an absolute program and the arguments before the command, e.g.
   * `{command: "/usr/local/bin/node", args: ["/opt/baton/dist/src/cli/bin.js"]}`. Name Node itself rather than
   * a `baton` launcher that finds Node on PATH: agents start their MCP servers with environments of their own.
   */
  baton: { command: string; args?: readonly string[] };
  /** The turn-requests file in the box (absolute); its folder must exist and be writable by the agent's user. */
  requestsFile: string;
}

/** Refuses relative paths (a bug of the caller): the agent starts the server in a working folder of its choosing. */
export function buildAgentToolsServerEntry(options: AgentToolsServerEntryOptions): AgentToolsServerEntry {
  for (const [what, path] of [
    ["the command", options.baton.command],
    [AGENT_TOOLS_FILE_ENV, options.requestsFile],
  ] as const) {
    if (!posix.isAbsolute(path))
      throw new BatonError("internal", `${what} must be an absolute path in the box, not ${path}`);
  }
  return {
    name: AGENT_TOOLS_SERVER_NAME,
    command: options.baton.command,
    args: [...(options.baton.args ?? []), AGENT_TOOLS_COMMAND],
    env: [{ name: AGENT_TOOLS_FILE_ENV, value: options.requestsFile }],
  };
}
