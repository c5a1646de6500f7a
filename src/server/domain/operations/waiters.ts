// Long-polls on an operation (`GET /ops/v1/operations/{id}?waitMs=`): the request waits until the operation's
// state changes, whichever instance commits it. The committing transaction notifies WAKE_CHANNELS.operations with
// the operation's id (store/operations.ts); the waiter re-reads the row on that notification and, should one be
// lost, every `pollMs` (store/wake.ts).
import { getOperation, type OperationRow } from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import { waitForChange } from "../../store/wake.js";
import { DEFAULT_WAKE_POLL_MS, WAKE_CHANNELS } from "../../store/wake-channels.js";

export class OperationWaiters {
  private readonly closing = new AbortController();

  constructor(
    private readonly db: Store,
    private readonly pollMs: number = DEFAULT_WAKE_POLL_MS,
  ) {}

  /**
   * The operation once its state is no longer `from`; or as it is when `timeoutMs` passes, when `signal` aborts
   * (the caller went away) or when the service stops (`wakeAll`). Undefined only when the row is gone.
   */
  async waitForState(
    id: string,
    from: OperationRow["state"],
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<OperationRow | undefined> {
    // One signal for "the caller went away or the service stops", with listeners removed when the wait ends
    // (AbortSignal.any would tie every long-poll's signal to the service's one for as long as the service runs).
    const stopping = new AbortController();
    const stop = stopping.signal;
    const sources = signal ? [signal, this.closing.signal] : [this.closing.signal];
    const abort = () => stopping.abort();
    for (const source of sources) {
      if (source.aborted) abort();
      else source.addEventListener("abort", abort, { once: true });
    }
    try {
      const changed = await waitForChange(this.db, WAKE_CHANNELS.operations, {
        payload: id,
        check: async () => {
          const row = await getOperation(this.db, id);
          return row === undefined || row.state !== from ? { row } : undefined;
        },
        timeoutMs,
        pollMs: this.pollMs,
        signal: stop,
      });
      if (changed) return changed.row;
    } catch (error) {
      if (!stop.aborted) throw error;
    } finally {
      for (const source of sources) source.removeEventListener("abort", abort);
    }
    return getOperation(this.db, id);
  }

  /** Shutdown: every long-poll answers now with the state it has, and any that arrives later at once. */
  wakeAll(): void {
    this.closing.abort();
  }
}
