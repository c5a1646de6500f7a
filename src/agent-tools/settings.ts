// Where `baton agent-tools` records calls: the file its variable names, checked before the server starts.
import { posix } from "node:path";
import { ConfigError } from "../errors.js";
import { AGENT_TOOLS_FILE_ENV } from "./wire.js";

const STARTED_BY_THE_AGENT =
  "baton agent-tools is started by a coding agent from the mcpServers entry Baton gives it, not by hand";

/** The turn-requests file's absolute path; refuses an unset, empty or relative value, naming the variable. */
export function readAgentToolsFile(env: NodeJS.ProcessEnv): string {
  const path = env[AGENT_TOOLS_FILE_ENV];
  if (path === undefined || path === "") {
    throw new ConfigError(
      `${AGENT_TOOLS_FILE_ENV} is not set; it names the file where tool calls are recorded (${STARTED_BY_THE_AGENT})`,
    );
  }
  if (!posix.isAbsolute(path)) {
    throw new ConfigError(
      `${AGENT_TOOLS_FILE_ENV} must be an absolute path (the agent starts this server in a folder of its choosing)`,
    );
  }
  return path;
}
