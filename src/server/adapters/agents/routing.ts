// The agent port as the engine sees it when workspaces choose their coding agent: each turn asks `route` which
// agent the task's workspace has chosen and hands the turn to it, or to the operator's default. Catalog agents
// are built on their first turn and kept (one ACP agent per entry, with its live processes and sessions); a task
// whose agent changed between turns has its previous agent's live process for it ended first. What to route to is
// decided by the caller (the domain reads the workspace's choice); nothing here knows a rule.
import type { AgentRunner, AgentTask, TurnResult } from "./port.js";

export type AgentRoute =
  /** The operator's default (`baton serve --agent …`, the command, scripted or manual agent). */
  | { kind: "default" }
  /** A catalog agent's id, chosen by the workspace and runnable by this service. */
  | { kind: "catalog"; id: string }
  /** The workspace chose an agent this service cannot run now: the turn fails with this reason. */
  | { kind: "refused"; reason: string };

export interface RoutingAgentOptions {
  /** The operator's default agent. */
  fallback: AgentRunner;
  /** Which agent runs the task's next turn; read at the start of each turn, so a change applies from the next. */
  route(task: AgentTask): Promise<AgentRoute>;
  /** Makes the catalog agent `id` (called once per id; the agent is kept until close). */
  build(id: string): AgentRunner;
  /** How many tasks' last agents are remembered (to end a live process on a switch); the oldest is forgotten. */
  rememberTasks?: number;
}

export function createRoutingAgent(options: RoutingAgentOptions): AgentRunner {
  const built = new Map<string, AgentRunner>();
  /** The agent that ran each task's last turn, oldest first (Map order), bounded by `rememberTasks`. */
  const lastOf = new Map<string, AgentRunner>();
  const remember = options.rememberTasks ?? 10_000;
  const runners = () => [options.fallback, ...built.values()];

  const agentFor = (route: Exclude<AgentRoute, { kind: "refused" }>): AgentRunner => {
    if (route.kind === "default") return options.fallback;
    let agent = built.get(route.id);
    if (!agent) {
      agent = options.build(route.id);
      built.set(route.id, agent);
    }
    return agent;
  };

  return {
    name: options.fallback.name,
    async runTurn(input): Promise<TurnResult> {
      const route = await options.route(input.task);
      if (route.kind === "refused") return { kind: "error", code: "agent_failed", reason: route.reason };
      const agent = agentFor(route);
      const taskId = input.task.id;
      const previous = lastOf.get(taskId);
      lastOf.delete(taskId);
      lastOf.set(taskId, agent);
      if (lastOf.size > remember) lastOf.delete(lastOf.keys().next().value!);
      // The task's earlier agent may still hold a live process for it: it would idle there beside the new one.
      if (previous && previous !== agent) await previous.release?.(taskId);
      return agent.runTurn(input);
    },
    async release(taskId) {
      lastOf.delete(taskId);
      await Promise.all(runners().map((agent) => agent.release?.(taskId)));
    },
    async close() {
      lastOf.clear();
      await Promise.all(runners().map((agent) => agent.close?.()));
    },
  };
}
