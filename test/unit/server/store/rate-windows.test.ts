// Shared rate limits on both engines: hits from several instances at once add up exactly, and each fixed
// window starts from nothing.
import { describe, expect, it } from "vitest";
import {
  hit,
  judgeHit,
  RATE_WINDOWS_DDL,
  sweepRateWindows,
  windowStartFor,
} from "../../../../src/server/store/rate-windows.js";
import { ENGINES, useEngine } from "../../../helpers/postgres.js";

const MINUTE = 60_000;
const T0 = 1_800_000_000_000; // a multiple of MINUTE: a window starts here

describe("the fixed window a time falls in", () => {
  it.each([
    { now: T0, windowMs: MINUTE, start: T0, rule: "a window's first millisecond starts it" },
    { now: T0 + MINUTE - 1, windowMs: MINUTE, start: T0, rule: "its last millisecond is still in it" },
    { now: T0 + MINUTE, windowMs: MINUTE, start: T0 + MINUTE, rule: "the next millisecond starts the next" },
    { now: 1_234, windowMs: 1_000, start: 1_000, rule: "windows are aligned to multiples of their length" },
  ])("$rule", ({ now, windowMs, start }) => {
    expect(windowStartFor(now, windowMs)).toBe(start);
  });
});

describe("judging a hit against the limit", () => {
  it.each([
    { hits: 1, limit: 50, allowed: true, remaining: 49, rule: "the first hit of a window leaves limit - 1" },
    { hits: 50, limit: 50, allowed: true, remaining: 0, rule: "the limit-th hit is still allowed" },
    { hits: 51, limit: 50, allowed: false, remaining: 0, rule: "the hit past the limit is refused" },
    { hits: 1, limit: 0, allowed: false, remaining: 0, rule: "a limit of 0 refuses every hit" },
  ])("$rule", ({ hits, limit, allowed, remaining }) => {
    expect(judgeHit(hits, limit, T0, MINUTE)).toEqual({ allowed, remaining, resetAtMs: T0 + MINUTE });
  });
});

describe.each(ENGINES)("shared rate windows on the $name engine", (engine) => {
  const db = useEngine(engine, RATE_WINDOWS_DDL);

  it("60 concurrent hits from 3 instances with limit 50 allow exactly 50, and the next window starts fresh", async () => {
    const instances = [db.store, db.another(), db.another()];
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => hit(instances[i % 3]!, "mcp:alice", MINUTE, 50, T0 + 10 + i)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    // Each hit saw its own count: the allowed ones left 49, 48, … 0, once each.
    const left = decisions.filter((d) => d.allowed).map((d) => d.remaining);
    expect(left.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(new Set(decisions.map((d) => d.resetAtMs))).toEqual(new Set([T0 + MINUTE]));
    expect(await hit(db.another(), "mcp:alice", MINUTE, 50, T0 + MINUTE)).toEqual({
      allowed: true,
      remaining: 49,
      resetAtMs: T0 + 2 * MINUTE,
    });
  });

  it("counts each key on its own", async () => {
    await hit(db.store, "a", MINUTE, 1, T0);
    expect((await hit(db.store, "a", MINUTE, 1, T0)).allowed).toBe(false);
    expect((await hit(db.store, "b", MINUTE, 1, T0)).allowed).toBe(true);
  });

  it("the sweep deletes windows that started longer ago than the longest window, and keeps the rest", async () => {
    await hit(db.store, "a", MINUTE, 5, T0 - 2 * MINUTE);
    await hit(db.store, "a", MINUTE, 5, T0 - MINUTE);
    await hit(db.store, "a", MINUTE, 5, T0);
    expect(await sweepRateWindows(db.store, T0, MINUTE)).toBe(1); // T0 - MINUTE started exactly MINUTE ago: kept
    const starts = await db.store.all<{ window_start_ms: number }>(
      "SELECT window_start_ms FROM rate_windows ORDER BY window_start_ms",
    );
    expect(starts.map((row) => row.window_start_ms)).toEqual([T0 - MINUTE, T0]);
  });

  it.each([
    {
      windowMs: 0,
      limit: 5,
      message: "the rate window must be a positive whole number of milliseconds, not 0",
    },
    { windowMs: 1.5, limit: 5, message: "the rate window must be a positive whole number of milliseconds" },
    {
      windowMs: MINUTE,
      limit: -1,
      message: "the rate limit must be a whole number of hits, 0 or more, not -1",
    },
  ])(
    "refuses a window of $windowMs ms or a limit of $limit, saying what to fix",
    async ({ windowMs, limit, message }) => {
      await expect(hit(db.store, "a", windowMs, limit, T0)).rejects.toThrow(message);
    },
  );
});
