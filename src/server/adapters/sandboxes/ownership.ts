// Which instance a box belongs to, as a pure decision: the instance that runs its driver owns it and renews a
// lease on it. Another instance never touches a box whose owner is live, nor one on another machine (its driver
// cannot reach it); a box on this machine whose owner's lease ran out (the owner died) is adopted by the next
// instance there. Boxes recorded before owners were (no owner) belong to whichever instance finds them.
import type { InstanceIdentity } from "../../primitives/instance.js";

export interface BoxOwnerFacts {
  ownerInstance: string | null;
  ownerMachine: string | null;
  ownerLeaseUntilMs: number | null;
}

export type Ownership =
  | "mine"
  /** Nobody live holds it and this machine may: take it (then check the driver still has the box). */
  | "adoptable"
  /** A live instance holds it: leave it alone. */
  | "held_elsewhere"
  /** Another machine's box: only an instance there can reach it. */
  | "other_machine";

/** How long an instance's hold on its boxes lasts unless renewed (it renews every third of it). */
export const BOX_OWNER_LEASE_MS = 60_000;

/**
 * `exclusive`: the store allows one instance only (SQLite, behind its lock file), so any other owner recorded is
 * a previous run of this service, dead by definition: its boxes are adopted at once, as before instances.
 */
export function decideOwnership(
  box: BoxOwnerFacts,
  me: InstanceIdentity,
  nowMs: number,
  exclusive = false,
): Ownership {
  if (box.ownerInstance === me.id) return "mine";
  if (box.ownerInstance === null || exclusive) return "adoptable";
  if (box.ownerMachine !== me.machine) return "other_machine";
  return (box.ownerLeaseUntilMs ?? 0) < nowMs ? "adoptable" : "held_elsewhere";
}
