// The status transitions the reference leaves open (section 3 "Task": "Transitions:
// not shown"). The README's status table is this table; `nextStatus` refuses anything not in it, so the engine
// cannot drift from what is written down. The names themselves are in status-names.ts (the API's wire shares them).

export {
  IDLE_STATUSES,
  OPEN_STATUSES,
  OPEN_TURN_STATES,
  PAUSE_REASONS,
  type PauseReason,
  TASK_SOURCES,
  TASK_STATUSES,
  type TaskSource,
  type TaskStatus,
  TURN_STATES,
  type TurnState,
} from "./status-names.js";

import { IDLE_STATUSES, TASK_STATUSES, type TaskStatus } from "./status-names.js";

export type TaskEvent =
  | "turn_opened" // a message started a new turn (it runs or waits in the queue)
  | "turn_began" // the agent started working on the turn (again, after a crash)
  | "replied" // the agent answered (response or clarify); no unmerged pull request
  | "replied_pull_request_open" // the agent answered and the task's pull request is open
  | "turn_failed" // the agent failed, or the turn was interrupted too often
  | "stopped" // a member stopped the queued or running turn
  | "paused" // the turn needs access the workspace lacks, or billing stops it
  | "pull_request_merged" // the code host reports the pull request merged
  | "pull_request_closed"; // the code host reports the pull request closed without merging

export interface StatusTransition {
  from: readonly TaskStatus[] | "new";
  event: TaskEvent;
  to: TaskStatus;
  note: string;
}

export const STATUS_TRANSITIONS: readonly StatusTransition[] = [
  {
    from: "new",
    event: "turn_opened",
    to: "pending",
    note: "task started; `queued` is true while no plan slot is free",
  },
  { from: IDLE_STATUSES, event: "turn_opened", to: "pending", note: "a follow-up resumes an idle task" },
  {
    from: ["pending", "implementing"],
    event: "turn_began",
    to: "implementing",
    note: "the agent works; again after a crash",
  },
  { from: ["implementing"], event: "replied", to: "replied", note: "a response or a clarifying question" },
  {
    from: ["implementing"],
    event: "replied_pull_request_open",
    to: "pr_open",
    note: "the task's pull request is open (not merged)",
  },
  {
    from: ["pending", "implementing"],
    event: "turn_failed",
    to: "failed",
    note: "agent error, time limit, three interruptions by a restart, or a first turn the full queue refused",
  },
  {
    from: ["pending", "implementing"],
    event: "stopped",
    to: "cancelled",
    note: "stop ends the queued or running turn",
  },
  {
    from: ["pending", "implementing"],
    event: "paused",
    to: "paused",
    note: "`pausedOn`: `billing` (billing inactive when the turn begins) or `access` (the agent lacks access)",
  },
  {
    from: ["pr_open"],
    event: "pull_request_merged",
    to: "completed",
    note: "the code host merged the pull request",
  },
  {
    from: ["pr_open"],
    event: "pull_request_closed",
    to: "replied",
    note: "the pull request was closed without merging: nothing is left open, the work was not completed; a follow-up resumes",
  },
];

export class TransitionError extends Error {
  override readonly name = "TransitionError";
}

/** The status `event` leads to from `from` (`"new"` for a task being created); throws when the table has no row. */
export function nextStatus(from: TaskStatus | "new", event: TaskEvent): TaskStatus {
  for (const row of STATUS_TRANSITIONS) {
    if (row.event !== event) continue;
    if (row.from === "new" ? from === "new" : from !== "new" && row.from.includes(from)) return row.to;
  }
  throw new TransitionError(`no task status transition from ${from} on ${event}`);
}

export const isTaskStatus = (value: string): value is TaskStatus =>
  (TASK_STATUSES as readonly string[]).includes(value);
