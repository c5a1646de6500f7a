// The one place that picks the rate limiter by engine. PostgreSQL may serve several instances, whose limits must
// add up: the store's limiter. SQLite serves exactly one (its file is locked to one `baton serve`), where the
// in-memory limiter gives the same answers without a write transaction per request.
import {
  type CredentialThrottle,
  DEFAULT_THROTTLE_LIMITS,
  FailedCredentialThrottle,
  type ThrottleLimits,
} from "../../../throttle/failed-credentials.js";
import type { Store } from "../../store/store.js";
import { type RateLimiter, SlidingWindowLimiter } from "./rate-limiter.js";
import { StoreRateLimiter } from "./store-limiter.js";
import { StoreCredentialThrottle } from "./store-throttle.js";

export function createRateLimiter(store: Store): RateLimiter {
  return store.engine === "postgres" ? new StoreRateLimiter(store) : new SlidingWindowLimiter();
}

/** The failed-credential throttle, by the same rule: in the store on PostgreSQL, in memory on SQLite. */
export function createCredentialThrottle(
  store: Store,
  limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS,
): CredentialThrottle {
  return store.engine === "postgres"
    ? new StoreCredentialThrottle(store, limits)
    : new FailedCredentialThrottle(limits);
}

/**
 * The same, made on first use: composing the service's routes (also to describe them, with no store behind) then
 * reads nothing of the store.
 */
export function lazyCredentialThrottle(store: () => Store): CredentialThrottle {
  let made: CredentialThrottle | undefined;
  const throttle = () => {
    made ??= createCredentialThrottle(store());
    return made;
  };
  return {
    check: (source, nowMs) => throttle().check(source, nowMs),
    recordFailure: (source, nowMs) => throttle().recordFailure(source, nowMs),
  };
}
