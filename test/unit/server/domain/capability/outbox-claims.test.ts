// Issue 26: "the e-mail outbox … processed once" across instances, on both engines: an instance claims a
// message before sending it, no other instance can take it while the claim's lease holds, and a dead claimer's
// message passes to another for good (the dead one's late record is refused). `another()` is a second
// instance's store (on SQLite the same one: one process per file).
import { beforeEach, describe, expect, it } from "vitest";
import { enqueueNotification, notificationsOf } from "../../../../../src/server/domain/capability/outbox.js";
import {
  anyDeliveryClaimable,
  claimDueDelivery,
  type DueDelivery,
  markDelivered,
} from "../../../../../src/server/domain/capability/outbox-claims.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const T0 = 1_800_000_000_000;
const LEASE = 30_000;
const RECIPIENTS = Array.from({ length: 10 }, (_, i) => `admin${i}@acme.test`);

describe.each(ENGINES)("e-mail outbox claims on the $name engine", (engine) => {
  const db = useEngine(engine);
  beforeEach(async () => {
    await migrateStore(db.store);
    const at = new Date(T0).toISOString();
    await db.store.run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'Acme', ?)", [at]);
    await db.store.run("INSERT INTO repositories (id, workspace_id, slug) VALUES ('repo', 'ws', 'acme/api')");
    await db.store.run(
      `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form,
         reason, status, created_at, updated_at)
       VALUES ('cr_1', 'ws', 'repo', 'acme/api', 'registry_access', 'registry.example.com', 'host', 'npm 401', 'open', ?, ?)`,
      [at, at],
    );
    await db.store.transaction(() =>
      enqueueNotification(
        db.store,
        {
          id: "ntf_1",
          requestId: "cr_1",
          kind: "new_request",
          subject: "s",
          text: "t",
          recipients: RECIPIENTS,
        },
        new Date(T0),
      ),
    );
  });

  it("two instances with 4 senders each claim each of 10 messages exactly once", async () => {
    const claimed: string[] = [];
    const sender = async (store: typeof db.store, owner: string) => {
      for (;;) {
        const due = await claimDueDelivery(store, { owner, leaseMs: LEASE, nowMs: T0 });
        if (!due) return;
        claimed.push(due.recipient);
      }
    };
    const stores = [db.store, db.another()];
    await Promise.all(stores.flatMap((store, i) => [0, 1, 2, 3].map((j) => sender(store, `i${i}-s${j}`))));
    expect([...claimed].sort()).toEqual([...RECIPIENTS].sort());
  });

  it("a message one instance holds is claimed by another only after the lease, and then only the new holder records it sent", async () => {
    const held: DueDelivery[] = [];
    for (const recipient of RECIPIENTS) {
      const due = await claimDueDelivery(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 });
      expect(due?.recipient).toBe(recipient);
      held.push(due!);
    }
    expect(await anyDeliveryClaimable(db.another(), T0 + LEASE)).toBe(false);
    expect(
      await claimDueDelivery(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE }),
    ).toBeUndefined();
    expect(await anyDeliveryClaimable(db.another(), T0 + LEASE + 1)).toBe(true);
    const b = (await claimDueDelivery(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE + 1 }))!;
    expect(b.recipient).toBe(held[0]!.recipient);
    expect(await markDelivered(db.store, held[0]!, new Date(T0 + LEASE + 2))).toBe(false);
    expect(await markDelivered(db.another(), b, new Date(T0 + LEASE + 3))).toBe(true);
    const [note] = await notificationsOf(db.store, "cr_1");
    expect(note!.deliveries.find((d) => d.recipient === b.recipient)).toMatchObject({
      state: "sent",
      attempts: 1,
    });
  });
});
