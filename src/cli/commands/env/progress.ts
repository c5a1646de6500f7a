// Progress lines on stderr while `baton env activate` waits: a state change or, failing that, a heartbeat, and
// never more than one line per `minIntervalMs`. Pure apart from the `write` it is given.
import { formatDuration } from "../../../format/index.js";
import type { OperationState } from "../../../transport/wire.js";

export interface ProgressOptions {
  write: (line: string) => void;
  /** The shortest gap between two lines. */
  minIntervalMs?: number;
  /** A line even without a state change, this often. */
  heartbeatMs?: number;
}

export interface ProgressReporter {
  /** Called after each answer with the current state and the time since the command started. */
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
      options.write(`baton: operation ${id} ${state} (${formatDuration(elapsedMs)})`);
      shownState = state;
      lastLineAt = elapsedMs;
    },
  };
}
