// Which agent `npm run demo -- --agent <id>` runs, and the errors that name the fix: an id the catalog lacks names
// the ids the demo runs; an agent without a fake model API says so; an agent missing from the sandbox image names
// the `npm run sandbox-image -- --agents=…` that adds it, keeping the agents the image has. Pure, against the
// real catalog.
import { describe, expect, it } from "vitest";
import {
  agentFlag,
  chooseDemoAgent,
  imageBuildArgs,
  whyNotInImage,
  // @ts-expect-error plain ES module script without types
} from "../../../scripts/demo/agent-choice.mjs";
import { AGENT_CATALOG, findAgentEntry } from "../../../src/server/adapters/agents/catalog.js";

describe("the demo's --agent flag", () => {
  it.each([
    [["--skip-build"], undefined],
    [["--agent", "codex"], "codex"],
    [["--agent=claude-code", "--skip-build"], "claude-code"],
    [["--agent"], ""],
    [["--agent", "--skip-build"], ""],
  ])("%j gives %j", (argv, id) => {
    expect(agentFlag(argv)).toBe(id);
  });
});

describe("choosing the demo's agent", () => {
  it.each(["claude-code", "codex"])("runs %s, the catalog's agents with a fake model API", (id) => {
    const chosen = chooseDemoAgent(id, AGENT_CATALOG);
    expect(chosen.entry.id).toBe(id);
    expect(chosen.api).toBe(id === "codex" ? "openai-responses" : "anthropic");
  });

  it.each([
    [
      "nope",
      'no agent "nope" in the catalog (src/server/adapters/agents/catalog.ts): the demo runs claude-code or codex',
    ],
    ["", "--agent needs an agent's id: the demo runs claude-code or codex"],
    ["opencode", "the demo has no fake of opencode's model API (openai-chat-completions)"],
  ])("refuses %j, naming the agents it runs", (id, said) => {
    const { error } = chooseDemoAgent(id, AGENT_CATALOG);
    expect(error).toContain(said);
    expect(error).toContain("(the catalog's gemini, opencode have no fake model API yet)");
  });
});

describe("the sandbox image's agents", () => {
  const codex = findAgentEntry("codex");
  const image = (agents: string[]) => ({ image: "baton-sandbox:0.2.0-abc", agents });

  it("is satisfied when the agents layer holds the agent", () => {
    expect(whyNotInImage(codex, image(["claude-code", "codex"]), {})).toBeNull();
  });

  it("names the build that adds the agent and keeps the ones the image has", () => {
    expect(whyNotInImage(codex, image(["claude-code"]), {})).toBe(
      "Codex is not in the sandbox image (its agents layer holds claude-code): run `npm run sandbox-image -- --agents=claude-code,codex`, then this demo again",
    );
    expect(whyNotInImage(codex, image([]), {})).toContain(
      "holds no agent): run `npm run sandbox-image -- --agents=codex`",
    );
  });

  it("says BATON_SANDBOX_AGENTS must go when it would leave the agent out again", () => {
    expect(whyNotInImage(codex, image(["gemini"]), { BATON_SANDBOX_AGENTS: "gemini" })).toContain(
      "--agents=codex,gemini` and unset BATON_SANDBOX_AGENTS",
    );
  });

  it("says when no image was built", () => {
    expect(whyNotInImage(codex, undefined, {})).toContain("run `npm run sandbox-image`");
  });

  it.each([
    [
      "keeps the recorded agents (no install from the registry)",
      image(["codex"]),
      {},
      ["--skip-build", "--agents=codex"],
    ],
    [
      "lets BATON_SANDBOX_AGENTS decide when set",
      image(["codex"]),
      { BATON_SANDBOX_AGENTS: "x" },
      ["--skip-build"],
    ],
    ["builds the default agents when nothing was built", undefined, {}, ["--skip-build"]],
  ])("the image build %s", (_case, recorded, env, args) => {
    expect(imageBuildArgs(recorded, env)).toEqual(args);
  });
});
