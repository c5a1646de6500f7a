// What the ACP adapter hands the agent (src/agent-tools/mcp-server-entry.ts): a stdio server entry in the ACP
// schema's shape (McpServerStdio: name, absolute command, args, env as [{name, value}]), and the server's own
// check of the variable it names (settings.ts).
import { describe, expect, it } from "vitest";
import {
  AGENT_TOOLS_FILE_ENV,
  buildAgentToolsServerEntry,
  readAgentToolsFile,
} from "../../../src/agent-tools/index.js";
import { BatonError, ConfigError } from "../../../src/errors.js";

describe("buildAgentToolsServerEntry", () => {
  it("names the server baton and runs `<baton> agent-tools` with the requests file in its env", () => {
    const entry = buildAgentToolsServerEntry({
      baton: { command: "/usr/local/bin/node", args: ["/opt/baton/dist/src/cli/bin.js"] },
      requestsFile: "/home/agent/.baton/turn-requests.jsonl",
    });
    expect(entry).toEqual({
      name: "baton",
      command: "/usr/local/bin/node",
      args: ["/opt/baton/dist/src/cli/bin.js", "agent-tools"],
      env: [{ name: "BATON_AGENT_TOOLS_FILE", value: "/home/agent/.baton/turn-requests.jsonl" }],
    });
    // ACP's McpServerStdio: exactly these four keys (no `type`, which marks the http and sse kinds).
    expect(Object.keys(entry).sort()).toEqual(["args", "command", "env", "name"]);
  });

  it("takes a baton launcher with no arguments before the command", () => {
    const entry = buildAgentToolsServerEntry({
      baton: { command: "/usr/bin/baton" },
      requestsFile: "/r.jsonl",
    });
    expect(entry.args).toEqual(["agent-tools"]);
  });

  it.each([
    ["a relative command", { command: "node" }, "/r.jsonl", "the command must be an absolute path"],
    [
      "a relative requests file",
      { command: "/n" },
      "r.jsonl",
      `${AGENT_TOOLS_FILE_ENV} must be an absolute path`,
    ],
  ])("refuses %s (a bug of the caller)", (_what, baton, requestsFile, says) => {
    expect(() => buildAgentToolsServerEntry({ baton, requestsFile })).toThrow(BatonError);
    expect(() => buildAgentToolsServerEntry({ baton, requestsFile })).toThrow(says);
  });
});

describe("readAgentToolsFile", () => {
  it("answers the absolute path the variable names", () => {
    expect(readAgentToolsFile({ [AGENT_TOOLS_FILE_ENV]: "/tmp/x/requests.jsonl" })).toBe(
      "/tmp/x/requests.jsonl",
    );
  });

  it.each([
    ["unset", {}, "BATON_AGENT_TOOLS_FILE is not set"],
    ["empty", { [AGENT_TOOLS_FILE_ENV]: "" }, "BATON_AGENT_TOOLS_FILE is not set"],
    [
      "relative",
      { [AGENT_TOOLS_FILE_ENV]: "requests.jsonl" },
      "BATON_AGENT_TOOLS_FILE must be an absolute path",
    ],
  ])("refuses the variable %s with a ConfigError naming it", (_what, env, says) => {
    expect(() => readAgentToolsFile(env)).toThrow(ConfigError);
    expect(() => readAgentToolsFile(env)).toThrow(says);
  });
});
