// Claims with leases on both engines: many claimers on several instances take every ready row exactly once
// without idling while rows are ready, and a claim whose lease ran out passes to another owner for good.
import { describe, expect, it } from "vitest";
import {
  CLAIM_COLUMNS_DDL,
  type ClaimRequest,
  claimNext,
  finishClaim,
  releaseClaim,
  renewLease,
} from "../../../../src/server/store/claims.js";
import type { Store } from "../../../../src/server/store/store.js";
import { ENGINES, useEngine, useSchema } from "../../../helpers/postgres.js";

const JOBS_DDL = `CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT NOT NULL, created_ms BIGINT NOT NULL, ${CLAIM_COLUMNS_DDL})`;
const T0 = 1_800_000_000_000;

function request(owner: string, now: number, leaseMs = 60_000): ClaimRequest {
  return {
    table: "jobs",
    ready: "state = ?",
    params: ["ready"],
    order: "created_ms, id",
    owner,
    leaseMs,
    now,
  };
}

async function insertJobs(store: Store, count: number, state = "ready"): Promise<void> {
  await store.transaction(async (tx) => {
    for (let id = 1; id <= count; id++) {
      await tx.run("INSERT INTO jobs (id, state, created_ms) VALUES (?, ?, ?)", [id, state, T0 + id]);
    }
  });
}

describe.each(ENGINES)("claims on the $name engine", (engine) => {
  const db = useEngine(engine, JOBS_DDL);

  it("3 instances x 20 concurrent claimers claim each of 300 ready rows exactly once, and none comes back empty while a row is free", async () => {
    const ROWS = 300;
    const instances = [db.store, db.another(), db.another()];
    const PER_INSTANCE = 20;
    const CLAIMERS = instances.length * PER_INSTANCE;
    await insertJobs(db.store, ROWS);
    const claimedBy = new Map<number, string>();
    const doubles: number[] = [];
    // Each claimer has at most one claim in flight, so when one comes back empty, every row not yet handed to
    // a claimer must be held by another claimer's claim in flight: fewer than CLAIMERS rows. More would mean
    // a free row was passed over (a claimer idled while work was ready).
    const leftWhenEmpty: number[] = [];
    const claimer = async (instance: Store, owner: string) => {
      for (;;) {
        const row = await claimNext(instance, request(owner, Date.now()));
        if (!row) {
          leftWhenEmpty.push(ROWS - claimedBy.size);
          return;
        }
        if (claimedBy.has(row.id as number)) doubles.push(row.id as number);
        claimedBy.set(row.id as number, owner);
        expect(row.claimed_by).toBe(owner);
      }
    };
    await Promise.all(
      instances.flatMap((instance, i) =>
        Array.from({ length: PER_INSTANCE }, (_, k) => claimer(instance, `instance-${i}/claimer-${k}`)),
      ),
    );
    expect(doubles).toEqual([]);
    expect(claimedBy.size).toBe(ROWS);
    expect(leftWhenEmpty).toHaveLength(CLAIMERS);
    expect(Math.max(...leftWhenEmpty)).toBeLessThan(CLAIMERS);
    const rows = await db.store.all<{ id: number; claimed_by: string }>("SELECT id, claimed_by FROM jobs");
    expect(new Map(rows.map((row) => [row.id, row.claimed_by]))).toEqual(claimedBy);
  });

  it("claims ready rows in the given order and skips rows that are not ready", async () => {
    await insertJobs(db.store, 3);
    await db.store.run("UPDATE jobs SET state = 'done' WHERE id = 1");
    const order = { ...request("a", T0), order: "created_ms DESC, id" };
    expect((await claimNext(db.store, order))?.id).toBe(3);
    expect((await claimNext(db.store, order))?.id).toBe(2);
    expect(await claimNext(db.store, order)).toBeUndefined();
  });

  it("a lease that expires is taken over by another owner, and the old owner's renew, release and finish then fail", async () => {
    await insertJobs(db.store, 1);
    const first = await claimNext(db.store, request("old", T0, 1_000));
    expect(first).toMatchObject({ id: 1, claimed_by: "old", lease_until_ms: T0 + 1_000, state: "ready" });
    expect(await claimNext(db.another(), request("new", T0 + 1_000))).toBeUndefined(); // not yet past the lease
    const taken = await claimNext(db.another(), request("new", T0 + 1_001, 5_000));
    expect(taken).toMatchObject({ id: 1, claimed_by: "new", lease_until_ms: T0 + 6_001 });
    const held = { table: "jobs", id: 1 };
    expect(await renewLease(db.store, { ...held, owner: "old", leaseMs: 1_000, now: T0 + 1_002 })).toBe(
      false,
    );
    expect(await releaseClaim(db.store, { ...held, owner: "old" })).toBe(false);
    expect(await finishClaim(db.store, { ...held, owner: "old", set: { state: "failed" } })).toBe(false);
    expect(await db.store.get("SELECT state, claimed_by, lease_until_ms FROM jobs")).toEqual({
      state: "ready",
      claimed_by: "new",
      lease_until_ms: T0 + 6_001,
    });
    expect(await renewLease(db.store, { ...held, owner: "new", leaseMs: 5_000, now: T0 + 3_000 })).toBe(true);
    expect(await claimNext(db.store, request("third", T0 + 6_500))).toBeUndefined(); // renewed to T0 + 8_000
    expect(await finishClaim(db.store, { ...held, owner: "new", set: { state: "done" } })).toBe(true);
    expect(await db.store.get("SELECT state, claimed_by, lease_until_ms FROM jobs")).toEqual({
      state: "done",
      claimed_by: null,
      lease_until_ms: null,
    });
    expect(await claimNext(db.store, request("third", T0 + 9_000))).toBeUndefined();
  });

  it("a released row is claimable at once by anyone", async () => {
    await insertJobs(db.store, 1);
    await claimNext(db.store, request("a", T0));
    expect(await claimNext(db.store, request("b", T0))).toBeUndefined();
    expect(await releaseClaim(db.store, { table: "jobs", id: 1, owner: "a" })).toBe(true);
    expect(await claimNext(db.another(), request("b", T0))).toMatchObject({ id: 1, claimed_by: "b" });
  });

  it.each([0, -1, 1.5, Number.NaN])("refuses a lease of %s ms, saying what to fix", async (leaseMs) => {
    await insertJobs(db.store, 1);
    await expect(claimNext(db.store, request("a", T0, leaseMs))).rejects.toThrow(
      `a claim's lease must be a positive whole number of milliseconds, not ${leaseMs}`,
    );
    await expect(
      renewLease(db.store, { table: "jobs", id: 1, owner: "a", leaseMs, now: T0 }),
    ).rejects.toThrow("a claim's lease must be a positive whole number of milliseconds");
    expect(await db.store.get("SELECT claimed_by FROM jobs")).toEqual({ claimed_by: null });
  });

  it("an expired lease no one has taken over is still its owner's to renew", async () => {
    await insertJobs(db.store, 1);
    await claimNext(db.store, request("a", T0, 1_000));
    expect(
      await renewLease(db.store, { table: "jobs", id: 1, owner: "a", leaseMs: 1_000, now: T0 + 5_000 }),
    ).toBe(true);
    expect(await claimNext(db.store, request("b", T0 + 5_500))).toBeUndefined();
  });
});

describe("claims on PostgreSQL while another transaction holds a row", () => {
  const schemas = useSchema();

  it("a claimer skips the row another instance has locked instead of waiting for it (FOR UPDATE SKIP LOCKED)", async () => {
    const holder = schemas.current.open();
    const claimer = schemas.current.open();
    await holder.run(JOBS_DDL);
    await insertJobs(holder, 2);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = holder.transaction(async (tx) => {
      await tx.get("SELECT id FROM jobs WHERE id = 1 FOR UPDATE");
      locked();
      await released;
    });
    await isLocked;
    const claiming = claimNext(claimer, request("b", Date.now()));
    const waited = new Promise((resolve) =>
      setTimeout(() => resolve("still waiting after 2 s"), 2_000).unref(),
    );
    const first = await Promise.race([claiming, waited]);
    release();
    await holding;
    await claiming;
    expect(first).toMatchObject({ id: 2, claimed_by: "b" });
    expect(await claimNext(claimer, request("b", Date.now()))).toMatchObject({ id: 1, claimed_by: "b" });
  });
});
