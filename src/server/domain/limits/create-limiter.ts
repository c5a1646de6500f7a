// The one place that picks the rate limiter by engine. PostgreSQL may serve several instances, whose limits must
// add up: the store's limiter. SQLite serves exactly one (its file is locked to one `baton serve`), where the
// in-memory limiter gives the same answers without a write transaction per request.
import type { Store } from "../../store/store.js";
import { type RateLimiter, SlidingWindowLimiter } from "./rate-limiter.js";
import { StoreRateLimiter } from "./store-limiter.js";

export function createRateLimiter(store: Store): RateLimiter {
  return store.engine === "postgres" ? new StoreRateLimiter(store) : new SlidingWindowLimiter();
}
