// What a workspace may choose as its coding agent, and where its turns go (domain/agent/choice.ts): the service
// default always; a catalog agent only with sandboxes and only when the sandbox image holds it; anything else is
// refused naming what to pick. A stored choice the service cannot run now fails the turn rather than running
// another vendor's agent in its place.
import { describe, expect, it } from "vitest";
import {
  type AgentChoices,
  decideAgentChoice,
  installedAgentOptions,
  routeOfChoice,
} from "../../../../../src/server/domain/agent/choice.js";

const boxes = (imageAgents: string[]): AgentChoices => ({
  serviceDefault: "Claude Code",
  sandboxes: true,
  installed: installedAgentOptions(true, imageAgents),
});
const noBoxes: AgentChoices = { serviceDefault: "the scripted agent", sandboxes: false, installed: [] };

describe("installedAgentOptions", () => {
  it.each([
    [
      "the image's catalog agents, in the catalog's order",
      true,
      ["codex", "claude-code"],
      ["claude-code", "codex"],
    ],
    ["an id the catalog does not know is left out", true, ["codex", "my-agent"], ["codex"]],
    ["without sandboxes none, whatever the image holds", false, ["codex"], []],
  ])("%s", (_rule, sandboxes, image, ids) => {
    expect(installedAgentOptions(sandboxes, image).map((option) => option.id)).toEqual(ids);
  });

  it("names each agent as people know it", () => {
    expect(installedAgentOptions(true, ["gemini"])).toEqual([{ id: "gemini", name: "Gemini CLI" }]);
  });
});

describe("decideAgentChoice", () => {
  it.each([
    ["the service default (null) with boxes", null, boxes(["codex"]), null],
    ["the service default (null) without boxes", null, noBoxes, null],
    ["an agent the image holds", "codex", boxes(["codex", "gemini"]), "codex"],
  ])("accepts %s", (_case, requested, choices, agentId) => {
    expect(decideAgentChoice(requested, choices)).toEqual({ ok: true, agentId });
  });

  it.each([
    [
      "an id Baton ships no entry for",
      "gpt-pilot",
      boxes(["codex", "gemini"]),
      '"gpt-pilot" is not a coding agent this service knows: pick the service default (Claude Code) or one of Codex (codex), Gemini CLI (gemini)',
    ],
    [
      "a catalog agent the image does not hold",
      "opencode",
      boxes(["codex"]),
      "opencode is not installed in this service's sandbox image: pick the service default (Claude Code) or one of Codex (codex); an operator adds it with npm run sandbox-image -- --agents=opencode",
    ],
    [
      "a catalog agent when the image holds none",
      "codex",
      boxes([]),
      "Codex is not installed in this service's sandbox image: keep the service default (Claude Code), the only agent this service runs; an operator adds it with npm run sandbox-image -- --agents=codex",
    ],
    [
      "a catalog agent without sandboxes",
      "codex",
      noBoxes,
      "Codex runs in a sandbox, and this service runs tasks without sandboxes (no sandbox driver): keep the service default (the scripted agent), the only agent this service runs",
    ],
  ])("refuses %s, naming what to pick", (_case, requested, choices, reason) => {
    expect(decideAgentChoice(requested, choices)).toEqual({ ok: false, reason });
  });
});

describe("routeOfChoice", () => {
  it.each([
    ["no choice: the default", null, boxes(["codex"]), { kind: "default" }],
    ["a runnable choice: that agent", "codex", boxes(["codex"]), { kind: "catalog", id: "codex" }],
  ])("%s", (_case, chosen, choices, route) => {
    expect(routeOfChoice(chosen, choices)).toEqual(route);
  });

  it.each([
    ["the image no longer holds it", boxes(["gemini"])],
    ["the service runs without sandboxes now", noBoxes],
  ])("a choice the service cannot run (%s) is refused, never run by another agent", (_case, choices) => {
    expect(routeOfChoice("codex", choices)).toEqual({
      kind: "refused",
      reason:
        "this workspace's chosen agent, Codex, is not one this service can run now: an owner or admin picks another in the workspace's settings, then a follow-up runs the turn again",
    });
  });
});
