// When a task's live agent process may take the next turn, and the environment a new one starts with. Pure.
import { withoutOperatorCredentials } from "../../../../credentials/operator-credentials.js";

/** Variables that change every turn without making the process's own copy wrong for the next one. */
const PER_TURN = new Set(["BATON_TURN_TOKEN"]);

/**
 * The variables the agent starts with: on the host its whole environment, the turn's sandbox variables over the
 * agent's own and the service's PATH and HOME, nothing else; in a box, the turn's over the agent's own, added to
 * the box's (which has its PATH and HOME).
 */
export function agentEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  sandbox: { env: Readonly<Record<string, string>>; box?: unknown },
  own: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const host = sandbox.box ? {} : { PATH: base.PATH, HOME: base.HOME };
  return withoutOperatorCredentials({ ...host, ...own, ...sandbox.env });
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
