// A task's status as words in a badge (never colour alone), with its queue place or pause reason when it has one.
// A `replied` task whose agent asked a question says that it waits for an answer: "Replied" alone reads as done.
import type { TaskStatus } from "../../../domain/tasks/statuses.js";
import type { ApiTask } from "../../../domain/tasks/views.js";
import { type Html, html, nothing } from "../html.js";
import type { QueuePlace } from "./queue.js";

export const STATUS_WORDS: Record<TaskStatus, string> = {
  pending: "Pending",
  implementing: "Working",
  replied: "Replied",
  pr_open: "Pull request open",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Stopped",
  paused: "Paused",
};

/** The words of a `replied` task whose agent's latest entry is a question (domain/tasks/awaiting-answer.ts). */
export const AWAITING_ANSWER_WORDS = "Waiting for an answer";

const PAUSE_WORDS = { billing: "billing is inactive", access: "the agent needs access" } as const;

export function renderStatus(task: ApiTask, place: QueuePlace | undefined, awaitingAnswer = false): Html {
  const queued = task.queued
    ? html` <span class="badge queued">${place ? `Queued: ${ordinal(place.position)} of ${place.of} in line` : "Queued"}</span>`
    : nothing;
  const paused = task.pausedOn ? html` <span class="hint">(${PAUSE_WORDS[task.pausedOn]})</span>` : nothing;
  const words =
    awaitingAnswer && task.status === "replied" ? AWAITING_ANSWER_WORDS : STATUS_WORDS[task.status];
  return html`<span class="badge ${task.status}">${words}</span>${queued}${paused}`;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: "st", 2: "nd", 3: "rd" }[n % 10] ?? "th"}`;
}
