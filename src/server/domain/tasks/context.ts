// What the task operations need from the service: the store, the clock, where links point, and the hand-over to
// the turn runtime. Tests swap `handOver` to reach the 503 path that a store failure would take.
import type { Store } from "../../store/store.js";

export interface TaskContext {
  db: Store;
  /**
   * Runs `work` (store calls only, joining this transaction) in a write transaction and resolves once it committed.
   * The service shares one commit among the requests of an event-loop turn when the store can.
   */
  commit: <T>(work: () => Promise<T>) => Promise<T>;
  now: () => Date;
  /** Base of dashboard links, without a trailing slash. */
  dashboardBase: () => string;
  /** Hands the task's saved messages to the engine (inside a transaction); returns turns that started. */
  handOver: (db: Store, taskId: string, now: Date) => Promise<string[]>;
  /** False while the service stops: saved requests are then answered 503 and handed over at the next start. */
  accepting: () => boolean;
  /** Runs turns that became `running`. */
  runTurns: (turnIds: readonly string[]) => void;
  /** Cancels the agent's work on a turn that was stopped. */
  abortTurn: (turnId: string) => void;
  /** A member stopped the task's queued turn: its sandbox is archived (a running turn's is, as it ends). */
  taskStopped?: (taskId: string) => Promise<void>;
}
