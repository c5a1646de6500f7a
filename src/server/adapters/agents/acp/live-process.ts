// When a task's live agent process may take the next turn, and the environment a new one starts with. Pure.
import { withoutOperatorCredentials } from "../../../../credentials/operator-credentials.js";

/** Variables that change every turn without making the process's own copy wrong for the next one. */
const PER_TURN = new Set(["BATON_TURN_TOKEN"]);

/** The agent's whole environment: the turn's sandbox variables over the service's PATH and HOME, nothing else. */
export function agentEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  sandboxEnv: Readonly<Record<string, string>>,
): Record<string, string> {
  return withoutOperatorCredentials({ PATH: base.PATH, HOME: base.HOME, ...sandboxEnv });
}

/** What must stay the same for a process to serve another turn: its variables but the per-turn ones. */
export function environmentKey(env: Readonly<Record<string, string>>): string {
  return JSON.stringify(
    Object.entries(env)
      .filter(([name]) => !PER_TURN.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}

export interface LiveFacts {
  alive: boolean;
  startedAtMs: number;
  environmentKey: string;
}

/**
 * A live process takes the turn while it speaks ACP, its variables (but the turn token) are the turn's, and it is
 * young enough that the turn token it started with outlives this turn (`reuseForMs`: the token's lifetime less
 * the time limit). Otherwise a new process starts, loading the session where the agent can.
 */
export function canReuse(
  live: LiveFacts,
  turn: { environmentKey: string; nowMs: number },
  reuseForMs: number,
) {
  return (
    live.alive && live.environmentKey === turn.environmentKey && turn.nowMs - live.startedAtMs < reuseForMs
  );
}
