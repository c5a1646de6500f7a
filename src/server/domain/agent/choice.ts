// Which coding agent a workspace may choose and what its choice means for a turn (pure). A workspace runs the
// operator's default (`baton serve --agent …`) unless an owner or admin chose a catalog agent the service can run:
// catalog agents run in sandboxes, so only with a sandbox driver, and only those the sandbox image holds.
import { AGENT_CATALOG, findAgentEntry } from "../../adapters/agents/catalog.js";
import type { AgentRoute } from "../../adapters/agents/routing.js";

export interface AgentOption {
  /** The catalog entry's id (`codex`). */
  id: string;
  /** Its name as people know it (`Codex`). */
  name: string;
}

/** What this service can run, as the settings page and the turn's routing see it. */
export interface AgentChoices {
  /** The operator's default, named for people: `Claude Code`, `the scripted agent`, `the agent program my-agent`. */
  serviceDefault: string;
  /** Whether turns run in sandbox boxes (a sandbox driver): catalog agents need them. */
  sandboxes: boolean;
  /** The catalog agents this service can run now, in the catalog's order. */
  installed: readonly AgentOption[];
}

/** The catalog agents runnable with these boxes: those of the catalog the sandbox image holds, none without boxes. */
export function installedAgentOptions(sandboxes: boolean, imageAgents: readonly string[]): AgentOption[] {
  if (!sandboxes) return [];
  return AGENT_CATALOG.filter((entry) => imageAgents.includes(entry.id)).map(({ id, name }) => ({
    id,
    name,
  }));
}

/** A catalog agent's name, or the id itself when Baton ships no entry for it (a choice stored by another version). */
export const agentNameOf = (id: string): string => findAgentEntry(id)?.name ?? id;

export type AgentChoiceDecision = { ok: true; agentId: string | null } | { ok: false; reason: string };

/** Whether a workspace may choose `requested` (null: the service default): an installed catalog agent or the default. */
export function decideAgentChoice(requested: string | null, choices: AgentChoices): AgentChoiceDecision {
  if (requested === null) return { ok: true, agentId: null };
  if (choices.installed.some((option) => option.id === requested)) return { ok: true, agentId: requested };
  const entry = findAgentEntry(requested);
  const pick = whatToPick(choices);
  if (!entry)
    return { ok: false, reason: `"${requested}" is not a coding agent this service knows: ${pick}` };
  if (!choices.sandboxes)
    return {
      ok: false,
      reason: `${entry.name} runs in a sandbox, and this service runs tasks without sandboxes (no sandbox driver): ${pick}`,
    };
  return {
    ok: false,
    reason: `${entry.name} is not installed in this service's sandbox image: ${pick}; an operator adds it with npm run sandbox-image -- --agents=${entry.id}`,
  };
}

/** Where a workspace's turn goes given its stored choice: the default, the chosen agent, or a refusal naming the fix. */
export function routeOfChoice(chosen: string | null, choices: AgentChoices): AgentRoute {
  if (chosen === null) return { kind: "default" };
  if (choices.installed.some((option) => option.id === chosen)) return { kind: "catalog", id: chosen };
  // Never another agent in its place: the workspace chose which vendor sees its code.
  return {
    kind: "refused",
    reason: `this workspace's chosen agent, ${agentNameOf(chosen)}, is not one this service can run now: an owner or admin picks another in the workspace's settings, then a follow-up runs the turn again`,
  };
}

/** The choices in words, for a refusal: the default always, then the installed agents by name and id. */
function whatToPick(choices: AgentChoices): string {
  const others = choices.installed.map((option) => `${option.name} (${option.id})`);
  return others.length === 0
    ? `keep the service default (${choices.serviceDefault}), the only agent this service runs`
    : `pick the service default (${choices.serviceDefault}) or one of ${others.join(", ")}`;
}
