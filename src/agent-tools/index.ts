// Baton's tools for a coding agent in its box (`baton agent-tools`), the pure side the service uses: the entry
// for ACP's `mcpServers`, the record schemas and the reader of a turn's requests. The stdio server itself is
// serve.ts, loaded only by the command (it brings the MCP SDK).
export {
  type AgentToolsServerEntry,
  type AgentToolsServerEntryOptions,
  buildAgentToolsServerEntry,
} from "./mcp-server-entry.js";
export {
  type AskUserInput,
  AskUserInputSchema,
  type OpenPullRequestInput,
  OpenPullRequestInputSchema,
  type ReportedCheck,
  type TurnRequest,
  TurnRequestSchema,
} from "./schemas.js";
export { readAgentToolsFile } from "./settings.js";
export { AGENT_TOOLS } from "./tools.js";
export {
  type AgentToolCall,
  readTurnRequests,
  renderTurnRequest,
  type TurnRequests,
} from "./turn-requests.js";
export {
  AGENT_TOOL_NAMES,
  AGENT_TOOLS_COMMAND,
  AGENT_TOOLS_FILE_ENV,
  AGENT_TOOLS_LIMITS,
  AGENT_TOOLS_SERVER_NAME,
  type AgentToolName,
} from "./wire.js";
