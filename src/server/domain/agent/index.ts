// A workspace's coding agent: what it may choose, who changes it, and where its turns go.
export {
  type AgentChoices,
  type AgentOption,
  agentNameOf,
  decideAgentChoice,
  installedAgentOptions,
  routeOfChoice,
} from "./choice.js";
export {
  type AgentSettingsDeps,
  assertMayChooseAgent,
  chooseWorkspaceAgent,
  readWorkspaceAgentSettings,
  routeWorkspaceTurns,
  type WorkspaceAgent,
} from "./settings.js";
