// Reference section 8 "Request rate": per token and endpoint, 600 GET / 120 POST or DELETE per minute; over it,
// 429 with Retry-After. The limiter takes the clock as an argument, so these run on exact instants.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SlidingWindowLimiter } from "../../../src/server/domain/limits/rate-limiter.js";

describe("sliding-window rate limiter", () => {
  it("admits 120 in a minute, refuses the 121st with the seconds until the oldest leaves the window", () => {
    const limiter = new SlidingWindowLimiter();
    for (let i = 0; i < 120; i++) expect(limiter.decide("k", 120, 1000 + i * 100).allowed).toBe(true);
    const refused = limiter.decide("k", 120, 13_000);
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 48 });
    expect(limiter.decide("k", 120, 60_999).allowed).toBe(false);
    expect(limiter.decide("k", 120, 61_000).allowed).toBe(true);
  });

  it("keys are separate: one token's endpoint does not use another's budget", () => {
    const limiter = new SlidingWindowLimiter();
    for (let i = 0; i < 3; i++) limiter.decide("a", 3, 0);
    expect(limiter.decide("a", 3, 1).allowed).toBe(false);
    expect(limiter.decide("b", 3, 1).allowed).toBe(true);
  });

  it("forgets keys idle for a whole window", () => {
    const limiter = new SlidingWindowLimiter(60_000, 1);
    limiter.decide("a", 3, 0);
    limiter.decide("b", 3, 30_000);
    limiter.decide("c", 3, 70_000);
    expect(limiter.size).toBe(2);
  });

  it("property: no window of 60 s ever holds more than the limit, and Retry-After is exact", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 200 }),
        (limit, gaps) => {
          const limiter = new SlidingWindowLimiter(60_000);
          const admitted: number[] = [];
          let now = 0;
          for (const gap of gaps) {
            now += gap;
            const decision = limiter.decide("k", limit, now);
            if (decision.allowed) admitted.push(now);
            else {
              // Waiting Retry-After seconds is enough; a second less (when it is more than one) is not.
              const oldest = admitted[admitted.length - limit]!;
              expect(decision.retryAfterSeconds).toBe(Math.max(1, Math.ceil((oldest + 60_000 - now) / 1000)));
            }
          }
          for (let i = limit; i < admitted.length; i++)
            expect(admitted[i]! - admitted[i - limit]!).toBeGreaterThanOrEqual(60_000);
        },
      ),
    );
  });
});
