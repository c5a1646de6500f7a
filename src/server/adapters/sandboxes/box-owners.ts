// The owner columns of `sandbox_boxes` (migration 92): which instance runs each box's driver, on which machine,
// and until when its hold lasts. Taking a box over is one conditional UPDATE, so two instances starting together
// on one machine never both adopt the same box.
import type { InstanceIdentity } from "../../primitives/instance.js";
import type { Store } from "../../store/store.js";

/**
 * Makes `me` the owner of `sandboxId` until `leaseUntilMs` if the box is free for it: no owner, already `me`, or
 * (unless `exclusive` says every other owner is dead) an owner on this machine whose hold ran out by `nowMs`.
 * False when another instance holds it (or took it first).
 */
export async function takeBoxOwnership(
  db: Store,
  sandboxId: string,
  hold: { me: InstanceIdentity; leaseUntilMs: number; nowMs: number; exclusive?: boolean },
): Promise<boolean> {
  const { me } = hold;
  const free = hold.exclusive
    ? "1 = 1"
    : "(owner_instance IS NULL OR owner_instance = ? OR (owner_machine = ? AND owner_lease_until_ms < ?))";
  const { changes } = await db.run(
    `UPDATE sandbox_boxes SET owner_instance = ?, owner_machine = ?, owner_lease_until_ms = ?
     WHERE sandbox_id = ? AND ${free}`,
    [
      me.id,
      me.machine,
      hold.leaseUntilMs,
      sandboxId,
      ...(hold.exclusive ? [] : [me.id, me.machine, hold.nowMs]),
    ],
  );
  return Number(changes) === 1;
}

/** Moves the hold on every live box `me` owns to `leaseUntilMs`; how many boxes it holds. */
export async function renewBoxOwnership(
  db: Store,
  me: InstanceIdentity,
  leaseUntilMs: number,
): Promise<number> {
  const { changes } = await db.run(
    "UPDATE sandbox_boxes SET owner_lease_until_ms = ? WHERE owner_instance = ? AND state <> 'deleted'",
    [leaseUntilMs, me.id],
  );
  return Number(changes);
}

/** A graceful stop: `me`'s boxes keep running, free at once for the next instance on this machine to adopt. */
export async function releaseBoxOwnership(db: Store, me: InstanceIdentity): Promise<void> {
  await db.run(
    "UPDATE sandbox_boxes SET owner_lease_until_ms = 0 WHERE owner_instance = ? AND state <> 'deleted'",
    [me.id],
  );
}
