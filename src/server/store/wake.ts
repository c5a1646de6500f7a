// Waiting for something another request (on this instance or any other) will write: a long-poll, the
// dashboard's live pages. A notification on the channel is the wake-up; polling is the fallback, so a lost
// notification or a LISTEN connection that dropped costs at most one poll interval, never the whole wait.
import type { Store } from "./store.js";

export interface WaitOptions<T> {
  /** Looks for the thing waited for: its value when it is there, undefined when not yet. */
  check: () => Promise<T | undefined>;
  /** How long to wait in all before giving up (the wait then resolves to undefined). */
  timeoutMs: number;
  /** The longest gap between two checks when no notification arrives. */
  pollMs: number;
  /** Stops the wait early: it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Wake only on notifications with this payload (the id of the thing waited on, when a channel carries many),
   * or with an empty one (the store's "look again" after its LISTEN connection came back). Unset: any.
   */
  payload?: string;
}

/**
 * Resolves to what `check` found, checking once at the start, again on each notification on `channel`, and
 * at least every `pollMs`; resolves to undefined when `timeoutMs` passes first. It listens before the first
 * check, so a commit that lands between that check and the listen is not missed. However it ends, it stops
 * listening and clears its timers.
 */
export async function waitForChange<T>(
  store: Store,
  channel: string,
  options: WaitOptions<T>,
): Promise<T | undefined> {
  const { check, timeoutMs, pollMs, signal, payload } = options;
  signal?.throwIfAborted();
  const deadline = performance.now() + timeoutMs;
  const nudge = createNudge();
  const stop = await store.listen(channel, (sent) => {
    if (payload === undefined || sent === "" || sent === payload) nudge.wake();
  });
  try {
    for (;;) {
      signal?.throwIfAborted();
      nudge.reset();
      const found = await check();
      if (found !== undefined) return found;
      const left = deadline - performance.now();
      if (left <= 0) return undefined;
      await nudge.sleep(Math.min(pollMs, left), signal);
    }
  } finally {
    await stop();
  }
}

/** A sleep that a notification cuts short; a notification during a check makes the next sleep return at once. */
function createNudge() {
  let woken = false;
  let onWake: (() => void) | undefined;
  return {
    wake: () => {
      woken = true;
      onWake?.();
    },
    reset: () => {
      woken = false;
    },
    sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (woken) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", aborted);
          onWake = undefined;
        };
        const aborted = () => {
          done();
          reject(signal?.reason);
        };
        const timer = setTimeout(() => {
          done();
          resolve();
        }, ms);
        onWake = () => {
          done();
          resolve();
        };
        signal?.addEventListener("abort", aborted, { once: true });
      });
    },
  };
}
