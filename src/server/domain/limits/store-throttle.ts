// The failed-credential throttle shared by every instance on one PostgreSQL, as the rate limits are: the same
// rule and answers as the in-memory throttle (throttle/failed-credentials.ts), each source's window kept in the
// store (store/credential-failures.ts). Sources idle for two windows are forgotten at most once per window on
// each instance, by the failure that finds the sweep due; that bounds the table as `maxSources` bounds the map.
import {
  type CredentialThrottle,
  checkSource,
  DEFAULT_THROTTLE_LIMITS,
  type FailureReport,
  failSource,
  type ThrottleLimits,
  type ThrottleVerdict,
} from "../../../throttle/failed-credentials.js";
import { changeSourceState, readSourceState, sweepSourceStates } from "../../store/credential-failures.js";
import type { Store } from "../../store/store.js";

export class StoreCredentialThrottle implements CredentialThrottle {
  private lastSweepMs = 0;

  constructor(
    private readonly store: Store,
    readonly limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS,
  ) {}

  async check(source: string, nowMs: number): Promise<ThrottleVerdict> {
    const seen = await readSourceState(this.store, source);
    if (!checkSource(seen, nowMs).verdict.throttled) return { throttled: false };
    // Blocked: count the refusal for the next report, under the lock (another instance may count one too).
    return changeSourceState(this.store, source, (state) => {
      const { verdict, state: after } = checkSource(state, nowMs);
      return { state: verdict.throttled ? after : undefined, result: verdict };
    });
  }

  async recordFailure(source: string, nowMs: number): Promise<FailureReport | null> {
    if (nowMs - this.lastSweepMs >= this.limits.windowMs) {
      this.lastSweepMs = nowMs;
      await sweepSourceStates(this.store, nowMs - 2 * this.limits.windowMs);
    }
    return changeSourceState(this.store, source, (state) => {
      const { report, state: after } = failSource(state, nowMs, this.limits);
      return { state: after, result: report };
    });
  }
}
