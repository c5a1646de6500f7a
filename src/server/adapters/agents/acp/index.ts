// The `acp` agent adapter (DESIGN "Task engine"): a coding agent that speaks the Agent Client Protocol.
export type { AgentExit, AgentProcess, SpawnAgent, SpawnAgentOptions } from "./agent-process.js";
export { spawnHostAgent } from "./agent-process.js";
export { BATON_PREAMBLE } from "./preamble.js";
export { type AcpAgent, type AcpAgentOptions, createAcpAgent } from "./runner.js";
export { createSessionMemory, type RememberedSession, type SessionMemory } from "./session-memory.js";
export { type AcpAgentWithToolsOptions, createAcpAgentWithTools, turnRequestsFile } from "./with-tools.js";
