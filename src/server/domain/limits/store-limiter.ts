// The sliding-window limiter kept in the store, shared by every instance on one PostgreSQL: the same rule and
// Retry-After as the in-memory one (rate-limiter.ts), counted in the store (store/rate-hits.ts). Hits older than
// the window are deleted at most once per `sweepEveryMs` on each instance, by the request that finds it due.
import { admitHit, sweepRateHits } from "../../store/rate-hits.js";
import type { Store } from "../../store/store.js";
import type { RateDecision, RateLimiter } from "./rate-limiter.js";

export class StoreRateLimiter implements RateLimiter {
  private lastSweepMs = 0;

  constructor(
    private readonly store: Store,
    private readonly windowMs = 60_000,
    private readonly sweepEveryMs = 60_000,
  ) {}

  /** admitHit refuses a cost outside 1..limit (the store checks it where the rows are written). */
  async decide(key: string, limit: number, nowMs: number, cost = 1): Promise<RateDecision> {
    if (nowMs - this.lastSweepMs >= this.sweepEveryMs) {
      this.lastSweepMs = nowMs;
      await sweepRateHits(this.store, nowMs, this.windowMs);
    }
    return admitHit(this.store, key, limit, this.windowMs, nowMs, cost);
  }
}
