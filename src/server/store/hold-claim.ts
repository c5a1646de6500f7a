// Keeping a claim while its work runs: the lease is renewed every third of its length, so a live instance never
// loses an item to another however long the work takes, while a dead one's items are free a lease after its last
// renewal. A renewal that finds the claim gone (taken over after a stall) marks the hold lost, and the holder
// must then not record an outcome: finishClaim by the owner only refuses it anyway.
import { type HeldClaim, renewLease } from "./claims.js";
import type { Store } from "./store.js";

export interface ClaimHold {
  /** True once a renewal found the claim taken by another owner (or finished). */
  lost(): boolean;
  /** Stops renewing; waits for a renewal in flight. */
  release(): Promise<void>;
}

export function holdClaim(
  store: Store,
  claim: HeldClaim,
  options: { leaseMs: number; now: () => number; onError?: (error: unknown) => void },
): ClaimHold {
  let lost = false;
  let inFlight: Promise<void> = Promise.resolve();
  const timer = setInterval(
    () => {
      inFlight = renewLease(store, { ...claim, leaseMs: options.leaseMs, now: options.now() }).then(
        (held) => {
          if (!held) lost = true;
        },
        (error: unknown) => options.onError?.(error),
      );
    },
    Math.max(1, Math.floor(options.leaseMs / 3)),
  );
  timer.unref();
  return {
    lost: () => lost,
    async release() {
      clearInterval(timer);
      await inFlight;
    },
  };
}

/** Runs `work` while `claim` is held (renewed), releasing the hold however `work` ends. */
export async function whileHeld<T>(
  store: Store,
  claim: HeldClaim,
  options: { leaseMs: number; now: () => number; onError?: (error: unknown) => void },
  work: (hold: ClaimHold) => Promise<T>,
): Promise<T> {
  const hold = holdClaim(store, claim, options);
  try {
    return await work(hold);
  } finally {
    await hold.release();
  }
}

/** How long an instance's claim on a queued item lasts unless renewed (BATON_SERVE_TEST_QUEUE_LEASE_MS in tests). */
export const DEFAULT_QUEUE_LEASE_MS = 30_000;
