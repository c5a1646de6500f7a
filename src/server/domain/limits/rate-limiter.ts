// Exact sliding-window rate limits: at most `limit` calls in any `windowMs`, per key (token + endpoint).
// Each key keeps the times of its last `limit` admitted calls in a ring; `cost` calls (a JSON-RPC batch counts
// each of its messages) are admitted together when the window would then hold at most `limit`, or not at all.
// The clock is passed in, so the rule is testable to the millisecond.

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request with this key would be admitted (0 when allowed). */
  retryAfterSeconds: number;
}

/** What the API's and MCP's gates ask: this one in memory, or the store's, shared by instances (create-limiter.ts). */
export interface RateLimiter {
  /** Admits `cost` calls (default 1, at most `limit`) on `key` at `nowMs`, all or none. */
  decide(key: string, limit: number, nowMs: number, cost?: number): RateDecision | Promise<RateDecision>;
}

/** A cost is a whole number of calls from 1 to the limit: a batch larger than the budget could never be admitted. */
export function checkCost(cost: number, limit: number): void {
  if (!Number.isSafeInteger(cost) || cost < 1 || cost > limit)
    throw new RangeError(
      `a rate-limited cost must be a whole number from 1 to the limit ${limit}, not ${cost}`,
    );
}

interface Ring {
  times: Float64Array;
  next: number;
  count: number;
  lastMs: number;
}

export class SlidingWindowLimiter implements RateLimiter {
  private readonly rings = new Map<string, Ring>();
  private lastSweepMs = 0;

  constructor(
    private readonly windowMs = 60_000,
    /** Keys idle for a whole window are dropped; this bounds memory to the keys active in the last window. */
    private readonly sweepEveryMs = 60_000,
  ) {}

  get size(): number {
    return this.rings.size;
  }

  decide(key: string, limit: number, nowMs: number, cost = 1): RateDecision {
    checkCost(cost, limit);
    this.sweep(nowMs);
    let ring = this.rings.get(key);
    if (!ring || ring.times.length !== limit) {
      ring = { times: new Float64Array(limit), next: 0, count: 0, lastMs: nowMs };
      this.rings.set(key, ring);
    }
    ring.lastMs = nowMs;
    // The window may hold `limit - cost` earlier calls: the (limit - cost + 1)-th most recent must have left it.
    const blockerRank = limit - cost + 1;
    if (ring.count >= blockerRank) {
      const blocker = ring.times[(ring.next - blockerRank + limit) % limit]!;
      const freeAt = blocker + this.windowMs;
      if (freeAt > nowMs)
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - nowMs) / 1000)) };
    }
    for (let admitted = 0; admitted < cost; admitted += 1) {
      ring.times[ring.next] = nowMs;
      ring.next = (ring.next + 1) % limit;
    }
    ring.count = Math.min(limit, ring.count + cost);
    return { allowed: true, retryAfterSeconds: 0 };
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < this.sweepEveryMs) return;
    this.lastSweepMs = nowMs;
    for (const [key, ring] of this.rings) if (nowMs - ring.lastMs >= this.windowMs) this.rings.delete(key);
  }
}
