// The task pages' route patterns (the same shapes as wire.ts's builders, with hono parameters) and the notices a
// redirect after a form names.
import { z } from "zod";
import { WORKSPACES_BASE } from "./wire.js";

export const TASK_ROUTES = {
  tasks: `${WORKSPACES_BASE}/:ws/tasks`,
  newTask: `${WORKSPACES_BASE}/:ws/tasks/new`,
  task: `${WORKSPACES_BASE}/:ws/tasks/:task`,
  messages: `${WORKSPACES_BASE}/:ws/tasks/:task/messages`,
  stop: `${WORKSPACES_BASE}/:ws/tasks/:task/stop`,
  updates: `${WORKSPACES_BASE}/:ws/tasks/:task/updates`,
} as const;

/** A 100,000-character prompt, each character up to 12 bytes once percent-encoded, with room for the rest. */
export const TASK_FORM_MAX_BYTES = 1_300_000;

export const NoticeSchema = z.enum(["started", "sent", "stopped"]);
export type Notice = z.infer<typeof NoticeSchema>;

/** What a redirect's notice says on the task page, as the task is when the page is shown. */
export function noticeWords(notice: Notice, task: { queued: boolean }): string {
  return notice === "started" && task.queued ? NOTICE_WORDS.queued : NOTICE_WORDS[notice];
}
export const NOTICE_WORDS: Record<Notice | "queued", string> = {
  started: "The task is started. The agent's reply appears below when it comes.",
  // Not "started" while it waits for a plan slot: the status above says its place in line.
  queued:
    "The task is saved and queued: it starts when the workspace has a free slot. The agent's reply appears below when it comes.",
  sent: "Your message is sent. The agent's reply appears below when it comes.",
  stopped: "The turn is stopped. Send a follow-up to start another.",
};
