// The names of task statuses, sources, pause reasons and turn states: vocabulary the public API's wire re-exports
// for the client commands (surfaces/api/wire.ts), so constants only, importing nothing. Transitions: statuses.ts.

export const TASK_STATUSES = [
  "pending",
  "implementing",
  "replied",
  "pr_open",
  "completed",
  "failed",
  "cancelled",
  "paused",
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const TASK_SOURCES = ["api", "tracker", "codehost_issue"] as const;
export type TaskSource = (typeof TASK_SOURCES)[number];

export const PAUSE_REASONS = ["access", "billing"] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/** A turn holds a plan slot while `running`, a queue place while `queued`; the rest are ended. */
export const TURN_STATES = [
  "queued",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "paused",
  "refused",
] as const;
export type TurnState = (typeof TURN_STATES)[number];
export const OPEN_TURN_STATES: ReadonlySet<TurnState> = new Set(["queued", "running"]);

/** Statuses of a task with no open turn: a follow-up opens a new turn. */
export const IDLE_STATUSES: readonly TaskStatus[] = [
  "replied",
  "pr_open",
  "completed",
  "failed",
  "cancelled",
  "paused",
];
/** Statuses that count against the 5-task limit: "starting, running or queued". */
export const OPEN_STATUSES: readonly TaskStatus[] = ["pending", "implementing"];
