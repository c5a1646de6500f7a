// Progress lines on stderr while waiting: a state change or, failing that, a heartbeat, and never more than one
// line per `minIntervalMs`. Pure apart from the `write` it is given.
import type { OperationState } from "../transport/wire.js";

export interface ProgressOptions {
  write: (line: string) => void;
  /** The shortest gap between two lines. */
  minIntervalMs?: number;
  /** A line even without a state change, this often. */
  heartbeatMs?: number;
}

export interface ProgressReporter {
  /** Called after each poll with the current state and the time since the command started. */
  update(state: OperationState, elapsedMs: number): void;
}

export function createProgressReporter(id: string, options: ProgressOptions): ProgressReporter {
  const minInterval = options.minIntervalMs ?? 3_000;
  const heartbeat = options.heartbeatMs ?? 20_000;
  let shownState: OperationState | undefined;
  // No line in the first interval: a quick activation prints nothing on stderr.
  let lastLineAt = 0;
  return {
    update(state, elapsedMs) {
      const changed = state !== shownState;
      const due = changed ? elapsedMs - lastLineAt >= minInterval : elapsedMs - lastLineAt >= heartbeat;
      if (!due) return;
      options.write(`baton: operation ${id} ${state} (${formatElapsed(elapsedMs)})`);
      shownState = state;
      lastLineAt = elapsedMs;
    },
  };
}

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${(ms / 1000).toFixed(seconds < 10 ? 1 : 0)}s`;
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;
}
