// Issue 26: "webhook deliveries are processed once" and "a webhook delivery claimed by an instance that dies is
// taken over after the lease expires", on both engines; `another()` is a second instance's store (on SQLite the
// same one: one process per file). The apply function is the test's own counter, so "once" is counted directly.
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import type { Store } from "../../../../../src/server/store/store.js";
import {
  claimDueDelivery,
  deliveriesOf,
  enqueueDelivery,
  nextDeliveryDueAt,
  recordDeliveryEnd,
} from "../../../../../src/server/surfaces/webhooks/deliveries.js";
import { WebhookWorker } from "../../../../../src/server/surfaces/webhooks/worker.js";
import { pollUntil } from "../../../../helpers/poll.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const T0 = 1_800_000_000_000;
const LEASE = 30_000;
const delivery = (id: string) => ({
  source: "codehost" as const,
  deliveryId: id,
  event: "issues",
  payload: "{}",
});

describe.each(ENGINES)("webhook delivery claims on the $name engine", (engine) => {
  const db = useEngine(engine);
  beforeEach(async () => {
    await migrateStore(db.store);
  });

  it("one delivery id received by two instances at once, 10 times each, is queued once: 1 new, 19 duplicate", async () => {
    const stores = [db.store, db.another()];
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]!.transaction(() => enqueueDelivery(stores[i % 2]!, delivery("gh-1"), T0)),
      ),
    );
    expect(answers.filter((a) => !a.duplicate)).toHaveLength(1);
    expect(await deliveriesOf(db.store, "codehost")).toHaveLength(1);
  });

  it("a delivery one instance holds is not claimable by another until the holder's lease has run out", async () => {
    await enqueueDelivery(db.store, delivery("gh-2"), T0);
    const a = await claimDueDelivery(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 });
    expect(a?.deliveryId).toBe("gh-2");
    const cases = [
      { at: T0 + 1, takenBy: undefined },
      { at: T0 + LEASE, takenBy: undefined },
      { at: T0 + LEASE + 1, takenBy: "gh-2" },
    ];
    for (const { at, takenBy } of cases) {
      const b = await claimDueDelivery(db.another(), { owner: "B", leaseMs: LEASE, nowMs: at });
      expect(b?.deliveryId, `claim by B at lease + ${at - T0 - LEASE} ms`).toBe(takenBy);
    }
  });

  it("after a takeover only the new holder records the outcome: the dead holder's late record changes nothing", async () => {
    await enqueueDelivery(db.store, delivery("gh-3"), T0);
    const a = (await claimDueDelivery(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 }))!;
    const b = (await claimDueDelivery(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE + 1 }))!;
    const end = { state: "done" as const, attempts: 1 };
    expect(await recordDeliveryEnd(db.store, { seq: a.seq, owner: "A" }, { ...end, outcome: "by A" })).toBe(
      false,
    );
    expect(
      await recordDeliveryEnd(db.another(), { seq: b.seq, owner: "B" }, { ...end, outcome: "by B" }),
    ).toBe(true);
    expect(await deliveriesOf(db.store, "codehost")).toMatchObject([{ state: "done", outcome: "by B" }]);
  });

  it("a held delivery falls due for others just after its holder's lease, not at once (no busy loop over it)", async () => {
    await enqueueDelivery(db.store, delivery("gh-4"), T0);
    expect(await nextDeliveryDueAt(db.store)).toBe(T0);
    await claimDueDelivery(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 });
    expect(await nextDeliveryDueAt(db.another())).toBe(T0 + LEASE + 1);
  });

  it("two instances' workers over 30 queued deliveries apply each exactly once", async () => {
    const applied: string[] = [];
    const now = Date.now();
    for (let i = 0; i < 30; i++) await enqueueDelivery(db.store, delivery(`gh-w${i}`), now);
    const workers = [db.store, db.another()].map(
      (store: Store, i) =>
        new WebhookWorker({
          db: store,
          owner: `instance-${i}`,
          now: () => new Date(),
          logger: pino({ level: "silent" }),
          commit: (work) => store.transaction(work),
          apply: async (d) => {
            applied.push(d.deliveryId);
            await new Promise((resolve) => setTimeout(resolve, 5));
            return `applied by instance-${i}`;
          },
        }),
    );
    for (const worker of workers) worker.start();
    const done = await pollUntil(
      async () => (await deliveriesOf(db.store, "codehost")).filter((d) => d.state === "done").length,
      (count) => count === 30,
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    await Promise.all(workers.map((worker) => worker.stop()));
    expect(done).toBe(30);
    expect(applied).toHaveLength(30);
    expect(new Set(applied).size).toBe(30);
  });
});
