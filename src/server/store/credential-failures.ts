// The failed-credential throttle's states in the store (migration 100), one row per source address, so every
// instance on one PostgreSQL counts a source's failures together. A change is read and written under the source's
// lock; what the change is stays the pure throttle's (throttle/failed-credentials.ts).
import type { SourceState } from "../../throttle/failed-credentials.js";
import { credentialFailuresLock } from "./lock-keys.js";
import type { Store } from "./store.js";

interface Row {
  window_start_ms: number;
  failures: number;
  refused: number;
  blocked_until_ms: number;
}

const toState = (row: Row | undefined): SourceState | undefined =>
  row && {
    windowStartMs: Number(row.window_start_ms),
    failures: Number(row.failures),
    refused: Number(row.refused),
    blockedUntilMs: Number(row.blocked_until_ms),
  };

/** The source's state as it is now (a plain read: most checks find nothing and write nothing). */
export async function readSourceState(store: Store, source: string): Promise<SourceState | undefined> {
  return toState(
    await store.get<Row>(
      "SELECT window_start_ms, failures, refused, blocked_until_ms FROM credential_failures WHERE source = ?",
      [source],
    ),
  );
}

/** Applies `change` to the source's state under its lock and stores the new state; resolves to `change`'s result. */
export async function changeSourceState<T>(
  store: Store,
  source: string,
  change: (state: SourceState | undefined) => { state: SourceState | undefined; result: T },
): Promise<T> {
  return store.transaction(async (tx) => {
    // A count lost in a crash lets one more guess through at most: not worth a WAL flush per refused credential.
    if (store.engine === "postgres") await tx.run("SET LOCAL synchronous_commit TO OFF");
    await tx.lock(credentialFailuresLock(source));
    const { state, result } = change(await readSourceState(store, source));
    if (state)
      await tx.run(
        `INSERT INTO credential_failures (source, window_start_ms, failures, refused, blocked_until_ms)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (source) DO UPDATE SET window_start_ms = excluded.window_start_ms,
           failures = excluded.failures, refused = excluded.refused, blocked_until_ms = excluded.blocked_until_ms`,
        [source, state.windowStartMs, state.failures, state.refused, state.blockedUntilMs],
      );
    return result;
  });
}

/** Forgets sources whose window and block both ended before `beforeMs`; returns how many. */
export async function sweepSourceStates(store: Store, beforeMs: number): Promise<number> {
  const { changes } = await store.run(
    "DELETE FROM credential_failures WHERE window_start_ms < ? AND blocked_until_ms < ?",
    [beforeMs, beforeMs],
  );
  return changes;
}
