// Exact sliding-window rate limits: at most `limit` requests in any `windowMs`, per key (token + endpoint).
// Each key keeps the times of its last `limit` admitted requests in a ring; a request is admitted when the
// oldest of them is at least a window old. The clock is passed in, so the rule is testable to the millisecond.

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request with this key would be admitted (0 when allowed). */
  retryAfterSeconds: number;
}

/** What the API's and MCP's gates ask: this one in memory, or the store's, shared by instances (create-limiter.ts). */
export interface RateLimiter {
  decide(key: string, limit: number, nowMs: number): RateDecision | Promise<RateDecision>;
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

  decide(key: string, limit: number, nowMs: number): RateDecision {
    this.sweep(nowMs);
    let ring = this.rings.get(key);
    if (!ring || ring.times.length !== limit) {
      ring = { times: new Float64Array(limit), next: 0, count: 0, lastMs: nowMs };
      this.rings.set(key, ring);
    }
    ring.lastMs = nowMs;
    if (ring.count < limit) {
      ring.times[ring.next] = nowMs;
      ring.next = (ring.next + 1) % limit;
      ring.count += 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    // Full ring: `next` points at the oldest admitted request.
    const oldest = ring.times[ring.next]!;
    const freeAt = oldest + this.windowMs;
    if (freeAt <= nowMs) {
      ring.times[ring.next] = nowMs;
      ring.next = (ring.next + 1) % limit;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freeAt - nowMs) / 1000)) };
  }

  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweepMs < this.sweepEveryMs) return;
    this.lastSweepMs = nowMs;
    for (const [key, ring] of this.rings) if (nowMs - ring.lastMs >= this.windowMs) this.rings.delete(key);
  }
}
