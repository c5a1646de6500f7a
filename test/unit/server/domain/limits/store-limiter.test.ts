// Reference section 8 "Request rate" / "MCP rate", held across instances: the store's limiter gives exactly the
// in-memory limiter's answers (an exact sliding window of 60 s, refused requests not counted, Retry-After the
// seconds until the oldest counted request leaves the window), and concurrent hits from several instances never
// admit one too many. Both engines; the clock is passed in, so the rule runs on exact instants.
import { describe, expect, it } from "vitest";
import { createRateLimiter } from "../../../../../src/server/domain/limits/create-limiter.js";
import { SlidingWindowLimiter } from "../../../../../src/server/domain/limits/rate-limiter.js";
import { StoreRateLimiter } from "../../../../../src/server/domain/limits/store-limiter.js";
import { translateForPostgres } from "../../../../../src/server/store/migrations/ddl.js";
import { admitHit, RATE_HITS_DDL, sweepRateHits } from "../../../../../src/server/store/rate-hits.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const MINUTE = 60_000;
const T0 = 1_800_000_000_000;
/** The migration's DDL as migration 91 runs it on each engine (PostgreSQL gets the translation). */
const ddlFor = (engine: string): string[] =>
  (engine === "postgres" ? translateForPostgres(RATE_HITS_DDL) : RATE_HITS_DDL)
    .split(";")
    .map((statement) => statement.trim())
    .filter(Boolean);

describe.each(ENGINES)("the store's sliding-window limiter on the $name engine", (engine) => {
  const db = useEngine(engine, ...ddlFor(engine.name));

  it.each([
    { at: 0, allowed: true, retry: 0, rule: "the first hit is admitted" },
    { at: 10_000, allowed: true, retry: 0, rule: "the second is admitted" },
    { at: 20_000, allowed: true, retry: 0, rule: "the limit-th (3rd) is admitted" },
    { at: 30_000, allowed: false, retry: 30, rule: "the 4th within 60 s is refused until the first leaves" },
    { at: 59_001, allowed: false, retry: 1, rule: "a refusal less than a second before is told 1 s" },
    {
      at: 60_000,
      allowed: true,
      retry: 0,
      rule: "60 s after the first, its place is free (refusals used none)",
    },
    { at: 60_001, allowed: false, retry: 10, rule: "then the window is full again until the second leaves" },
  ])("limit 3 in any 60 s: $rule", async ({ at, allowed, retry }) => {
    const limiter = new StoreRateLimiter(db.store);
    const script = [0, 10_000, 20_000, 30_000, 59_001, 60_000, 60_001];
    let last: { allowed: boolean; retryAfterSeconds: number } | undefined;
    for (const step of script.slice(0, script.indexOf(at) + 1))
      last = await limiter.decide("k", 3, T0 + step);
    expect(last).toEqual({ allowed, retryAfterSeconds: retry });
  });

  it("gives the in-memory limiter's answers, Retry-After included, over an irregular run of hits", async () => {
    const memory = new SlidingWindowLimiter(MINUTE);
    const stored = new StoreRateLimiter(db.store, MINUTE);
    let now = T0;
    let seed = 7;
    const answers: { memory: unknown; stored: unknown }[] = [];
    for (let i = 0; i < 60; i++) {
      seed = (seed * 48_271) % 2_147_483_647; // a fixed pseudo-random walk: the same run every time
      now += [0, 1, 400, 3_000, 9_999, 20_000][seed % 6]!;
      answers.push({ memory: memory.decide("k", 4, now), stored: await stored.decide("k", 4, now) });
    }
    expect(answers.map((a) => a.stored)).toEqual(answers.map((a) => a.memory));
    expect(answers.filter((a) => (a.memory as { allowed: boolean }).allowed).length).toBeGreaterThan(4);
    expect(answers.filter((a) => !(a.memory as { allowed: boolean }).allowed).length).toBeGreaterThan(4);
  });

  it("a cost of several calls (a batch's messages) is admitted whole or not at all, as in memory", async () => {
    const memory = new SlidingWindowLimiter(MINUTE);
    const stored = new StoreRateLimiter(db.store, MINUTE);
    // Limit 10: 4 + 4 fit, a third 4 does not (8 + 4 > 10) though 2 would, and nothing is half-admitted.
    const script = [
      { at: 0, cost: 4, allowed: true },
      { at: 1_000, cost: 4, allowed: true },
      { at: 2_000, cost: 4, allowed: false },
      { at: 2_500, cost: 2, allowed: true },
      { at: 3_000, cost: 1, allowed: false, retry: 57 }, // until the first four leave
      { at: 60_000, cost: 4, allowed: true }, // the first four left the window
      { at: 60_001, cost: 1, allowed: false },
      { at: 61_000, cost: 4, allowed: true },
    ];
    for (const { at, cost, allowed, retry } of script) {
      const fromMemory = memory.decide("k", 10, T0 + at, cost);
      const fromStore = await stored.decide("k", 10, T0 + at, cost);
      expect({ at, ...fromStore }).toEqual({ at, ...fromMemory });
      expect({ at, allowed: fromStore.allowed }).toEqual({ at, allowed });
      if (retry !== undefined) expect(fromStore.retryAfterSeconds).toBe(retry);
    }
    const rows = await db.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM rate_hits WHERE key = ?", [
      "k",
    ]);
    // Every admitted call is a row (the sweep at 60 s removed the first four, a whole window old).
    expect(Number(rows!.n)).toBe(4 + 2 + 4 + 4);
  });

  it("gives the in-memory limiter's answers over an irregular run of hits of irregular costs", async () => {
    const memory = new SlidingWindowLimiter(MINUTE);
    const stored = new StoreRateLimiter(db.store, MINUTE);
    let now = T0;
    let seed = 11;
    const answers: { memory: unknown; stored: unknown }[] = [];
    for (let i = 0; i < 60; i++) {
      seed = (seed * 48_271) % 2_147_483_647; // a fixed pseudo-random walk: the same run every time
      now += [0, 1, 400, 3_000, 9_999, 20_000][seed % 6]!;
      const cost = 1 + (seed % 5);
      answers.push({
        memory: memory.decide("k", 6, now, cost),
        stored: await stored.decide("k", 6, now, cost),
      });
    }
    expect(answers.map((a) => a.stored)).toEqual(answers.map((a) => a.memory));
    expect(answers.filter((a) => (a.memory as { allowed: boolean }).allowed).length).toBeGreaterThan(4);
    expect(answers.filter((a) => !(a.memory as { allowed: boolean }).allowed).length).toBeGreaterThan(4);
  });

  it("a cost above the limit, or not a whole number, is a programming error, not a refusal", async () => {
    const stored = new StoreRateLimiter(db.store, MINUTE);
    await expect(stored.decide("k", 5, T0, 6)).rejects.toThrow(/from 1 to the limit 5, not 6/);
    expect(() => new SlidingWindowLimiter(MINUTE).decide("k", 5, T0, 0)).toThrow(/not 0/);
  });

  it("60 concurrent hits through 3 instances' stores with a limit of 50 admit exactly 50", async () => {
    const stores = [db.store, db.another(), db.another()];
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => admitHit(stores[i % 3]!, "mcp:alice", 50, MINUTE, T0 + i)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    const rows = await db.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM rate_hits WHERE key = ?", [
      "mcp:alice",
    ]);
    expect(Number(rows!.n)).toBe(50);
  });

  it("keys are separate: one token's endpoint does not use another's budget", async () => {
    expect((await admitHit(db.store, "a", 1, MINUTE, T0)).allowed).toBe(true);
    expect((await admitHit(db.store, "a", 1, MINUTE, T0 + 1)).allowed).toBe(false);
    expect((await admitHit(db.store, "b", 1, MINUTE, T0 + 1)).allowed).toBe(true);
  });

  it("old hits are swept: a hit a whole window old goes, one inside the window stays", async () => {
    await admitHit(db.store, "k", 10, MINUTE, T0);
    await admitHit(db.store, "k", 10, MINUTE, T0 + 30_000);
    expect(await sweepRateHits(db.store, T0 + MINUTE, MINUTE)).toBe(1);
    const left = await db.store.all<{ at_ms: number }>("SELECT at_ms FROM rate_hits");
    expect(left.map((row) => Number(row.at_ms))).toEqual([T0 + 30_000]);
  });

  it("the limiter sweeps on its own, at most once per sweep interval", async () => {
    const limiter = new StoreRateLimiter(db.store, MINUTE, MINUTE);
    await limiter.decide("old", 5, T0);
    await limiter.decide("k", 5, T0 + MINUTE - 1);
    const count = async () =>
      Number((await db.store.get<{ n: number }>("SELECT COUNT(*) AS n FROM rate_hits"))!.n);
    expect(await count()).toBe(2);
    await limiter.decide("k", 5, T0 + MINUTE + 10); // due: the first hit is a window old
    expect(await count()).toBe(2);
    await limiter.decide("k", 5, T0 + 2 * MINUTE + 20); // due again: everything but itself is a window old
    expect(await count()).toBe(1);
  });
});

describe("the limiter by engine (create-limiter.ts)", () => {
  it.each(ENGINES)("$name: the store's on PostgreSQL, the in-memory one on SQLite", async (engine) => {
    const set = await engine.setUp();
    try {
      const limiter = createRateLimiter(set.store);
      expect(limiter).toBeInstanceOf(
        set.store.engine === "postgres" ? StoreRateLimiter : SlidingWindowLimiter,
      );
    } finally {
      await set.tearDown();
    }
  });
});
