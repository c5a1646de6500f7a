// Taking the next operation of an engagement under a lease, on any instance: only the oldest open operation is
// ever taken (activation order is arrival order), and only when no other instance's lease on it still holds. An
// operation whose holder died (its lease ran out while `running`) is taken over, counting an attempt; one
// interrupted MAX_ATTEMPTS times fails terminally instead, so none stays `running` forever.
import { OPERATION_ERRORS } from "../../../transport/wire.js";
import {
  engagementOperationsLock,
  markFailed,
  markRunning,
  nextOpenOperation,
  type OperationRow,
} from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import { checkStillAllowed } from "./activate.js";

export const MAX_ATTEMPTS = 3;

/** What to do with an engagement's oldest open operation, seen by `owner` at `nowMs`. Pure. */
export type HeadDecision = "idle" | "busy" | "interrupted" | "claim";

export function decideHead(
  head: Pick<OperationRow, "state" | "attempts" | "claimed_by" | "lease_until_ms"> | undefined,
  owner: string,
  nowMs: number,
): HeadDecision {
  if (!head) return "idle";
  const heldByOther =
    head.claimed_by !== null && head.claimed_by !== owner && (head.lease_until_ms ?? 0) >= nowMs;
  if (heldByOther) return "busy";
  if (head.state === "running" && head.attempts >= MAX_ATTEMPTS) return "interrupted";
  return "claim";
}

export type HeadClaim =
  | { kind: "idle" }
  | { kind: "busy" }
  /** The head ended without running (refused, or interrupted too often): look at the next one. */
  | { kind: "ended"; op: OperationRow }
  | { kind: "claimed"; op: OperationRow; takenOverFrom: string | null };

/**
 * In one transaction holding the engagement's operations lock (the order against requests that start operations
 * and against other instances' drains): reads the head and claims it, fails it, or leaves it. `onIdle` runs inside
 * that transaction when nothing is left to take, so a drain can stop in the same step that found the queue empty.
 */
export async function claimHead(
  db: Store,
  engagementId: string,
  claim: { owner: string; leaseMs: number; now: () => Date; onIdle: () => void },
): Promise<HeadClaim> {
  return db.transaction(async (tx) => {
    await tx.lock(engagementOperationsLock(engagementId));
    const head = await nextOpenOperation(db, engagementId);
    const at = claim.now();
    const decision = decideHead(head, claim.owner, at.getTime());
    if (decision === "idle" || decision === "busy" || !head) {
      claim.onIdle();
      return { kind: decision === "busy" ? "busy" : "idle" };
    }
    if (decision === "interrupted") {
      const reason = `the service stopped during this operation ${head.attempts} times; start it again`;
      await markFailed(db, head.id, OPERATION_ERRORS.interrupted, reason, at);
      return { kind: "ended", op: head };
    }
    const refusal = await checkStillAllowed(db, head, at.getTime());
    if (refusal) {
      await markFailed(db, head.id, refusal.code, refusal.reason, at);
      return { kind: "ended", op: head };
    }
    const leaseUntilMs = at.getTime() + claim.leaseMs;
    await markRunning(db, head.id, { owner: claim.owner, leaseUntilMs }, at);
    const takenOverFrom = head.state === "running" ? head.claimed_by : null;
    return {
      kind: "claimed",
      op: {
        ...head,
        state: "running",
        attempts: head.attempts + 1,
        claimed_by: claim.owner,
        lease_until_ms: leaseUntilMs,
      },
      takenOverFrom,
    };
  });
}

/** Whether `owner` still holds the operation's claim (read inside the transaction that commits its outcome). */
export async function stillHolds(
  db: Store,
  op: OperationRow,
  owner: string,
): Promise<OperationRow | undefined> {
  await db.current()?.lock(engagementOperationsLock(op.engagement_id));
  const row = (await db.get("SELECT * FROM operations WHERE id = ?", [op.id])) as OperationRow | undefined;
  return row?.state === "running" && row.claimed_by === owner ? row : undefined;
}
