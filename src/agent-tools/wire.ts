// The wire of Baton's tool server for a coding agent in its box (`baton agent-tools`): the variable naming the
// turn-requests file, the server's and tools' names, and the limits both sides check. One place, as every
// wire's constants are (CONVENTIONS 3).

/** Names the file each tool call is appended to; the service sets it in the server's `mcpServers` entry. */
export const AGENT_TOOLS_FILE_ENV = "BATON_AGENT_TOOLS_FILE";

/** The `baton` command that runs the server (`baton agent-tools`). */
export const AGENT_TOOLS_COMMAND = "agent-tools";

/** The server's name in the agent's `mcpServers` and in its MCP `serverInfo`. */
export const AGENT_TOOLS_SERVER_NAME = "baton";

export const AGENT_TOOL_NAMES = ["ask_user", "open_pull_request"] as const;
export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

export const AGENT_TOOLS_LIMITS = {
  questionChars: 10_000,
  titleChars: 200,
  bodyChars: 60_000,
  /** Required checks one call may report, and the bounds of each one's name and note. */
  checks: 50,
  checkNameChars: 200,
  checkNoteChars: 500,
  /**
   * The turn-requests file never grows past this: an agent calling in a loop gets a tool error, not a full disk.
   * A largest call is under 400 KB as one JSON line (60,000 characters, each at most six bytes escaped).
   */
  fileBytes: 4 * 1024 * 1024,
  /**
   * One JSON-RPC message from the agent may be at most this long; a longer one closes the connection (the SDK's
   * stdio transport refuses to buffer it). A largest legitimate call is well under half of it.
   */
  messageBytes: 1024 * 1024,
} as const;
