// Which instance runs a task's running turn: the one whose claim (taken when the turn begins, renewed every
// lease/3) still holds. A running turn nobody holds (never begun, given back at shutdown, or its instance died and
// the lease ran out) may be taken by any instance; taking it counts an attempt, as a restart after a crash does.
import type { Store } from "../../store/store.js";
import type { TurnRow } from "./task-store.js";

/** Who claims a turn as it begins, and for how long without renewal. */
export interface TurnClaim {
  owner: string;
  leaseMs: number;
}

/** Whether `owner` may begin (or take over) the running turn at `nowMs`. Pure. */
export function mayClaimTurn(
  turn: Pick<TurnRow, "claimed_by" | "lease_until_ms">,
  owner: string,
  nowMs: number,
): boolean {
  return turn.claimed_by === null || turn.claimed_by === owner || (turn.lease_until_ms ?? 0) < nowMs;
}

/** The SQL condition of mayClaimTurn, for `owner` and `nowMs` in this order. */
export const CLAIMABLE_TURN = "(claimed_by IS NULL OR claimed_by = ? OR lease_until_ms < ?)";

/** Running turns `owner` may take at `nowMs` (oldest first). */
export async function claimableRunningTurns(
  db: Store,
  owner: string | undefined,
  nowMs: number,
): Promise<Pick<TurnRow, "id" | "task_id" | "attempts" | "claimed_by">[]> {
  if (owner === undefined)
    return (await db.all(
      "SELECT id, task_id, attempts, claimed_by FROM task_turns WHERE state = 'running' ORDER BY seq",
    )) as Pick<TurnRow, "id" | "task_id" | "attempts" | "claimed_by">[];
  return (await db.all(
    `SELECT id, task_id, attempts, claimed_by FROM task_turns WHERE state = 'running' AND ${CLAIMABLE_TURN}
     ORDER BY seq`,
    [owner, nowMs],
  )) as Pick<TurnRow, "id" | "task_id" | "attempts" | "claimed_by">[];
}
