// What `baton start` and `baton reply` print while following (reference rules 2, 5, 6): conversation entries on
// stdout, each with a prefix telling the agent, the service and people apart (a person's message is `user`, the
// reference's role, as the API and the dashboard name it); notices and the next command to run
// on stderr. Pure: returns lines; src/cli prints them.

import type { FollowOutcome } from "./follow.js";
import type { FollowEvent, FollowedEntry } from "./follow-step.js";
import { isFailedOutcome } from "./follow-step.js";
import type { StartNotice } from "./start-in-repository.js";

/** The one vocabulary for conversation entries, by `role/kind`: following and `baton show` both use it. */
export const ENTRY_LABELS: Readonly<Record<string, string>> = {
  "agent/response": "agent",
  "agent/clarify": "agent asks",
  "platform/response": "baton",
  "platform/error": "baton error",
  "user/message": "user",
};

/** One entry: `<prefix>: <first line>`, later lines indented two spaces so no line can pass for a new entry. */
export function renderEntry(entry: FollowedEntry): string[] {
  const prefix = ENTRY_LABELS[`${entry.role}/${entry.kind}`] ?? `${entry.role} ${entry.kind}`;
  const [first = "", ...rest] = entry.body.split(/\r?\n/);
  return [`${prefix}: ${first}`, ...rest.map((line) => (line === "" ? "" : `  ${line}`))];
}

/** Where an event goes: conversation entries to stdout, notices to stderr. */
export function renderFollowEvent(event: FollowEvent): { stream: "stdout" | "stderr"; lines: string[] } {
  switch (event.type) {
    case "entry":
      return { stream: "stdout", lines: renderEntry(event.entry) };
    case "queued":
      return {
        stream: "stderr",
        lines: [
          "Queued: the workspace is running as many tasks as its plan allows; the turn starts when a slot frees.",
        ],
      };
    case "picked_up":
      return { stream: "stderr", lines: ["The reply was picked up; following the task."] };
    case "connection_lost":
      return {
        stream: "stderr",
        lines: [`${event.reason}. Still following: the next poll tries again (the task keeps going).`],
      };
    case "connection_back":
      return { stream: "stderr", lines: ["The service answers again; following the task."] };
  }
}

export function renderStartNotice(notice: StartNotice): string {
  switch (notice.type) {
    case "repository":
      return notice.remote === null
        ? `Repository: ${notice.repo}`
        : `Repository: ${notice.repo} (from remote ${notice.remote})`;
    case "not_connected":
      return `Repository ${notice.repo} (remote ${notice.remote}) is not connected to this workspace; trying the next remote.`;
    case "agent_picks":
      return {
        outside_checkout:
          "Repository: none given and not inside a git checkout; the agent picks one (-r <owner/name> to choose).",
        no_codehost_remote:
          "Repository: this checkout has no code-host remote; the agent picks one (-r <owner/name> to choose).",
        none_connected:
          "Repository: none of this checkout's remotes is connected to the workspace; the agent picks one.",
      }[notice.why];
    case "saved_not_handed_over":
      return `Task ${notice.taskId} is saved, but the service could not hand it to the agent yet; it will when it can.`;
  }
}

const quoteHint = (taskId: string) => `baton reply ${taskId} "…"`;
const showHint = (taskId: string) => `baton show ${taskId}`;

/** The closing lines (stderr) for an outcome, with the next command to run. */
export function renderOutcome(
  outcome: FollowOutcome,
  context: {
    taskId: string;
    timeoutMinutes: number;
    pausedOn?: string | null | undefined;
    lastKind?: string;
  },
): string[] {
  const { taskId } = context;
  switch (outcome.kind) {
    case "turn_done": {
      if (outcome.status === "paused")
        return [
          `The task is paused${context.pausedOn ? ` on ${context.pausedOn}` : ""}: it resumes with a follow-up once that is sorted (${quoteHint(taskId)}).`,
        ];
      if (outcome.status === "cancelled")
        return [`The task was cancelled. Send a follow-up to resume it: ${quoteHint(taskId)}`];
      if (isFailedOutcome(outcome.status))
        return [`The task ${outcome.status}. Send a follow-up to try again: ${quoteHint(taskId)}`];
      return context.lastKind === "clarify"
        ? [`The agent asked a question. Answer it with: ${quoteHint(taskId)}`]
        : [`Turn done (${outcome.status}). Reply with: ${quoteHint(taskId)}`];
    }
    case "not_picked_up":
      return [
        `The reply was not picked up within 2 minutes (the task is ${outcome.status}); it stays saved. Check later with: ${showHint(taskId)}`,
      ];
    case "timed_out":
      return [
        `Still working after ${context.timeoutMinutes} minute${context.timeoutMinutes === 1 ? "" : "s"}; stopped waiting, the task keeps going. Check later with: ${showHint(taskId)}`,
      ];
    case "interrupted":
      return [`Stopped waiting; the task keeps going. Check it with: ${showHint(taskId)}`];
  }
}
