// Reading and changing a workspace's coding agent (the dashboard's settings page) and routing its turns: any member
// reads the choice, owners and admins alone change it, and only to an agent this service can run (choice.ts).
import type { AgentTask } from "../../adapters/agents/port.js";
import type { AgentRoute } from "../../adapters/agents/routing.js";
import type { Store } from "../../store/store.js";
import type { Membership } from "../auth/users.js";
import { domainError } from "../errors.js";
import { type AgentChoices, agentNameOf, decideAgentChoice, routeOfChoice } from "./choice.js";
import { readWorkspaceAgent, writeWorkspaceAgent } from "./choice-store.js";

export interface AgentSettingsDeps {
  db: Store;
  /** What this service can run now (the task service's; the sandbox manager starts after the app is made). */
  choices(): AgentChoices;
}

export interface WorkspaceAgent {
  /** The workspace's chosen agent, or null when it runs the service default. */
  chosen: { id: string; name: string; runnable: boolean } | null;
  choices: AgentChoices;
}

export async function readWorkspaceAgentSettings(
  deps: AgentSettingsDeps,
  workspaceId: string,
): Promise<WorkspaceAgent> {
  const choices = deps.choices();
  const id = await readWorkspaceAgent(deps.db, workspaceId);
  if (id === undefined) throw domainError("not_found", "no such workspace; pick one of yours from the list");
  return {
    chosen:
      id === null
        ? null
        : { id, name: agentNameOf(id), runnable: choices.installed.some((option) => option.id === id) },
    choices,
  };
}

/**
 * Sets the workspace's agent (`requested` null: back to the service default) as `membership` (the caller's own in
 * that workspace). Refuses a member (forbidden) and an agent this service cannot run (invalid_request, naming
 * what to pick). The running turn keeps its agent; the task's next turn reads the new choice.
 */
export async function chooseWorkspaceAgent(
  deps: AgentSettingsDeps,
  membership: Membership,
  requested: string | null,
): Promise<WorkspaceAgent> {
  assertMayChooseAgent(membership);
  const decided = decideAgentChoice(requested, deps.choices());
  if (!decided.ok) throw domainError("invalid_request", decided.reason);
  await writeWorkspaceAgent(deps.db, membership.workspaceId, decided.agentId);
  return readWorkspaceAgentSettings(deps, membership.workspaceId);
}

/** Owners and admins choose the workspace's agent; a member is refused (forbidden), saying who can. */
export function assertMayChooseAgent(membership: Membership): void {
  if (membership.role === "member")
    throw domainError(
      "forbidden",
      `only an owner or admin of ${membership.workspaceName} chooses its coding agent; ask one of them`,
    );
}

/** The agent port's routing (adapters/agents/routing.ts): the workspace's choice, read when each turn starts. */
export function routeWorkspaceTurns(deps: AgentSettingsDeps): (task: AgentTask) => Promise<AgentRoute> {
  return async (task) =>
    routeOfChoice((await readWorkspaceAgent(deps.db, task.workspaceId)) ?? null, deps.choices());
}
