// The failed-credential throttle kept in the store (issue 36, point 5) gives the in-memory throttle's answers for
// the same failures and checks, and instances on one store count one source together. Both engines; the clock is
// passed in, so the rule runs on exact instants, and the limits are small so a sequence shows every edge.
import { describe, expect, it } from "vitest";
import { StoreCredentialThrottle } from "../../../../../src/server/domain/limits/store-throttle.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import { FailedCredentialThrottle } from "../../../../../src/throttle/failed-credentials.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const T0 = 1_800_000_000_000;
const LIMITS = { maxFailures: 3, windowMs: 10_000, maxSources: 100 };

/** Failures and checks of one source at instants after T0: every verdict and report must match the memory's. */
const STEPS: { at: number; op: "fail" | "check" }[] = [
  { at: 0, op: "check" },
  { at: 0, op: "fail" },
  { at: 1_000, op: "fail" },
  { at: 2_000, op: "check" },
  { at: 2_500, op: "fail" },
  { at: 3_000, op: "check" },
  { at: 3_000, op: "check" },
  { at: 11_000, op: "check" },
  { at: 12_499, op: "check" },
  { at: 12_500, op: "check" },
  { at: 12_500, op: "fail" },
  { at: 30_000, op: "fail" },
];

describe.each(ENGINES)("the store's failed-credential throttle on the $name engine", (engine) => {
  const db = useEngine(engine);

  it("answers every check and failure of a sequence as the in-memory throttle does", async () => {
    await migrateStore(db.store);
    const memory = new FailedCredentialThrottle(LIMITS);
    const store = new StoreCredentialThrottle(db.store, LIMITS);
    for (const { at, op } of STEPS) {
      const now = T0 + at;
      const expected = op === "check" ? memory.check("10.0.0.1", now) : memory.recordFailure("10.0.0.1", now);
      const got =
        op === "check" ? await store.check("10.0.0.1", now) : await store.recordFailure("10.0.0.1", now);
      expect(got, `${op} at +${at} ms`).toEqual(expected);
    }
  });

  it("two instances count one source together: the third failure, on either, starts the block for both", async () => {
    await migrateStore(db.store);
    const [a, b] = [
      new StoreCredentialThrottle(db.store, LIMITS),
      new StoreCredentialThrottle(db.another(), LIMITS),
    ];
    expect(await a.recordFailure("10.0.0.2", T0)).toMatchObject({ kind: "failed" });
    expect(await b.recordFailure("10.0.0.2", T0 + 1)).toBeNull();
    expect(await a.recordFailure("10.0.0.2", T0 + 2)).toMatchObject({ kind: "throttled", failures: 3 });
    expect(await b.check("10.0.0.2", T0 + 3)).toEqual({ throttled: true, retryAfterSeconds: 10 });
    expect(await a.check("10.0.0.3", T0 + 3), "another source is not blocked").toEqual({ throttled: false });
  });
});
