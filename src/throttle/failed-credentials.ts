// Failed credentials per source address: after `maxFailures` failures from one source within `windowMs`, the
// source is blocked for `windowMs` (429 with Retry-After). What a block refuses is the caller's: `baton serve`
// refuses only further failing attempts (a credential that verifies is served: behind a front every user shares
// one address), `baton proxy` every request before its lease is looked up (each box has an address of its own,
// and the lookup is a call to `baton serve`). A success resets
// nothing, so an attacker holding one valid token cannot wash a guessing flood clean between guesses. Pure: the
// clock is passed in and the limits are data; memory is bounded by `maxSources` (the least recently failing
// source is forgotten first). Shared by every surface of `baton serve` and by `baton proxy`; on PostgreSQL `baton
// serve` keeps the same states in the store instead (domain/limits/store-throttle.ts), so its instances count
// together.

export interface ThrottleLimits {
  /** Failures from one source within the window that start a block. */
  maxFailures: number;
  /** How long failures are counted together, and how long a block lasts. */
  windowMs: number;
  /** Sources tracked at once; beyond it the least recently failing is dropped. */
  maxSources: number;
}

export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = {
  maxFailures: 20,
  windowMs: 60_000,
  maxSources: 10_000,
};

export type ThrottleVerdict = { throttled: false } | { throttled: true; retryAfterSeconds: number };

/**
 * What a failure asks to be logged, at most twice per source per window (so a flood cannot fill the disk):
 * `failed` at the first failure of a window (with what the source did in its previous window), `throttled` when
 * the block starts.
 */
export type FailureReport =
  | { kind: "failed"; failures: 1; previousFailures: number; previousRefused: number }
  | { kind: "throttled"; failures: number; retryAfterSeconds: number };

/** What the throttle remembers of one source: the window its failures are counted in, and its block. */
export interface SourceState {
  windowStartMs: number;
  failures: number;
  /** Requests refused with 429 during this window's block. */
  refused: number;
  blockedUntilMs: number;
}

/**
 * The check before a credential is looked at, as a pure step: the verdict, and the source's state after it (a
 * refusal is counted for the next report). `state` undefined: the source has no failures on record.
 */
export function checkSource(
  state: SourceState | undefined,
  nowMs: number,
): { verdict: ThrottleVerdict; state: SourceState | undefined } {
  if (!state || state.blockedUntilMs <= nowMs) return { verdict: { throttled: false }, state };
  return {
    verdict: { throttled: true, retryAfterSeconds: secondsUntil(state.blockedUntilMs, nowMs) },
    state: { ...state, refused: state.refused + 1 },
  };
}

/** A refused credential, as a pure step: the line to log (or null), and the source's state after it. */
export function failSource(
  previousState: SourceState | undefined,
  nowMs: number,
  limits: Pick<ThrottleLimits, "maxFailures" | "windowMs">,
): { report: FailureReport | null; state: SourceState } {
  let state = previousState ?? { windowStartMs: nowMs, failures: 0, refused: 0, blockedUntilMs: 0 };
  let previous = { failures: 0, refused: 0 };
  if (nowMs - state.windowStartMs >= limits.windowMs && state.blockedUntilMs <= nowMs) {
    previous = { failures: state.failures, refused: state.refused };
    state = { windowStartMs: nowMs, failures: 0, refused: 0, blockedUntilMs: 0 };
  }
  state = { ...state, failures: state.failures + 1 };
  if (state.failures === limits.maxFailures) {
    state.blockedUntilMs = nowMs + limits.windowMs;
    return {
      report: {
        kind: "throttled",
        failures: state.failures,
        retryAfterSeconds: secondsUntil(state.blockedUntilMs, nowMs),
      },
      state,
    };
  }
  if (state.failures === 1)
    return {
      report: {
        kind: "failed",
        failures: 1,
        previousFailures: previous.failures,
        previousRefused: previous.refused,
      },
      state,
    };
  return { report: null, state };
}

/** A throttle kept in memory or in a store: both answer the same for the same failures. */
export interface CredentialThrottle {
  check(source: string, nowMs: number): ThrottleVerdict | Promise<ThrottleVerdict>;
  recordFailure(source: string, nowMs: number): FailureReport | null | Promise<FailureReport | null>;
}

export class FailedCredentialThrottle implements CredentialThrottle {
  private readonly sources = new Map<string, SourceState>();

  constructor(readonly limits: ThrottleLimits = DEFAULT_THROTTLE_LIMITS) {}

  /** How many sources are tracked now (never more than `maxSources`). */
  get size(): number {
    return this.sources.size;
  }

  /** Before any credential is looked at: is this source blocked? A refusal is counted for the next report. */
  check(source: string, nowMs: number): ThrottleVerdict {
    const { verdict, state } = checkSource(this.sources.get(source), nowMs);
    if (verdict.throttled && state) this.touch(source, state);
    return verdict;
  }

  /** A credential from this source was refused (401/407): count it; returns a line to log, or null. */
  recordFailure(source: string, nowMs: number): FailureReport | null {
    const known = this.sources.get(source);
    if (!known) this.makeRoom();
    const { report, state } = failSource(known, nowMs, this.limits);
    this.touch(source, state);
    return report;
  }

  /** Map order is the eviction order: a source moves to the back whenever it fails or is refused. */
  private touch(source: string, state: SourceState): void {
    this.sources.delete(source);
    this.sources.set(source, state);
  }

  private makeRoom(): void {
    while (this.sources.size >= this.limits.maxSources) {
      const oldest = this.sources.keys().next().value;
      if (oldest === undefined) return;
      this.sources.delete(oldest);
    }
  }
}

function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}
