// The agent port the task engine runs (DESIGN "Task engine"): the operator's default agent (given, ACP, command or
// scripted) and, in front of it, a router that sends a workspace's turns to the catalog agent its owners chose
// (domain/agent), one ACP agent per catalog entry, made on its first turn and kept.
import { basename, join } from "node:path";
import { createAcpAgentWithTools } from "../../adapters/agents/acp/index.js";
import {
  AGENTS_IN_BOX,
  type AgentEntry,
  agentArgv,
  catalogAgentOptions,
  findAgentEntry,
} from "../../adapters/agents/catalog.js";
import { createCommandAgent } from "../../adapters/agents/command.js";
import type { AgentRunner } from "../../adapters/agents/port.js";
import { createRoutingAgent } from "../../adapters/agents/routing.js";
import { createScriptedAgent } from "../../adapters/agents/scripted.js";
import type { Codehost } from "../../adapters/codehost/port.js";
import { type CodehostPush, createGitAuthHeader } from "../../adapters/codehost/push-access.js";
import { packageRoot } from "../../adapters/sandboxes/image.js";
import type { SandboxManager } from "../../adapters/sandboxes/manager.js";
import type { Store } from "../../store/store.js";
import { type AgentChoices, installedAgentOptions, routeWorkspaceTurns } from "../agent/index.js";
import { loadAgentRules } from "../seed/tasks-seed.js";

export interface AgentCommandSettings {
  /** The agent program (no shell); it gets the turn on stdin and prints its reply as JSON. */
  argv: readonly string[];
  timeoutMs: number;
}

export interface AgentAcpSettings {
  /** The ACP agent program and its arguments (no shell): on the service's machine, or in the box with a driver. */
  argv: readonly string[];
  timeoutMs: number;
  /** A catalog agent (in a box): its name, fixed variables, session mode and set-up there. */
  entry?: AgentEntry | undefined;
}

/** The agents' part of the task service's options (service.ts documents each). */
export interface TurnAgentsOptions {
  db: Store;
  agentCommand?: AgentCommandSettings | undefined;
  agentAcp?: AgentAcpSettings | undefined;
  agent?: AgentRunner | undefined;
  agentEnv?: Readonly<Record<string, string>> | undefined;
  agentTimeoutMs?: number | undefined;
  catalogAgent?: ((entry: AgentEntry) => AgentRunner) | undefined;
  installedAgents?: (() => readonly string[]) | undefined;
  sandboxManager?: (() => SandboxManager | undefined) | undefined;
  codehostPush?: CodehostPush | undefined;
}

export interface TurnAgents {
  /** The operator's default (the admin route answers its turns when it is the manual agent). */
  fallback: AgentRunner;
  /** What the engine calls: the workspace's chosen catalog agent, else the default. */
  routed: AgentRunner;
  /** What a workspace may choose now, and the default's name. */
  choices(): AgentChoices;
}

/** A turn's limit when no flag says (`--agent-timeout`'s default). */
const DEFAULT_AGENT_TIMEOUT_MS = 1_800_000;

export function createTurnAgents(options: TurnAgentsOptions, codehost: Codehost): TurnAgents {
  const { db } = options;
  const gitAuthHeader = createGitAuthHeader(db, options.codehostPush);
  const acpAgent = (settings: AgentAcpSettings) =>
    createAcpAgentWithTools({
      agentName: settings.entry?.name ?? basename(settings.argv[0]!),
      argv: settings.argv,
      timeoutMs: settings.timeoutMs,
      baseEnv: options.agentEnv ?? {},
      ...(settings.entry ? catalogAgentOptions(settings.entry) : {}),
      // The tool server is this very service's CLI, run by the Node running the service.
      baton: { command: process.execPath, args: [join(packageRoot(), "dist", "src", "cli", "bin.js")] },
      // After `open_pull_request` the service pushes a host sandbox's branch as the scripted agent does.
      push: { gitUrl: (ws, repo) => codehost.gitUrl(ws, repo), gitAuthHeader },
    });
  const fallback =
    options.agent ??
    (options.agentAcp ? acpAgent(options.agentAcp) : undefined) ??
    (options.agentCommand
      ? createCommandAgent({
          argv: options.agentCommand.argv,
          timeoutMs: options.agentCommand.timeoutMs,
          baseEnv: options.agentEnv ?? {},
        })
      : createScriptedAgent({
          rules: () => loadAgentRules(db),
          gitUrl: (ws, repo) => codehost.gitUrl(ws, repo),
          gitAuthHeader,
        }));
  const defaultEntry = options.agent ? undefined : options.agentAcp?.entry;
  const serviceDefault = describeDefault(options);
  const choices = (): AgentChoices => {
    // Catalog agents run in boxes: only with a sandbox driver (or a test's own list of installed agents).
    const sandboxes = options.sandboxManager !== undefined || options.installedAgents !== undefined;
    const imageAgents = options.installedAgents?.() ?? options.sandboxManager?.()?.imageAgents ?? [];
    return { serviceDefault, sandboxes, installed: installedAgentOptions(sandboxes, imageAgents) };
  };
  const build = (id: string): AgentRunner => {
    // The operator's own catalog agent is the default already: one agent, so its tasks' sessions carry on.
    if (defaultEntry?.id === id) return fallback;
    const entry = findAgentEntry(id)!;
    if (options.catalogAgent) return options.catalogAgent(entry);
    return acpAgent({
      argv: agentArgv(entry, `${AGENTS_IN_BOX}/${entry.id}`),
      timeoutMs: options.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
      entry,
    });
  };
  const routed = createRoutingAgent({ fallback, route: routeWorkspaceTurns({ db, choices }), build });
  return { fallback, routed, choices };
}

/** The operator's default agent as the settings page names it. */
function describeDefault(options: TurnAgentsOptions): string {
  if (options.agent)
    return options.agent.name === "manual" ? "the manual agent" : `the ${options.agent.name} agent`;
  if (options.agentAcp?.entry) return options.agentAcp.entry.name;
  if (options.agentAcp) return `the ACP agent ${basename(options.agentAcp.argv[0]!)}`;
  if (options.agentCommand) return `the agent program ${basename(options.agentCommand.argv[0]!)}`;
  return "the scripted agent";
}
