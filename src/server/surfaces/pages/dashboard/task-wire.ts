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
export const NOTICE_WORDS: Record<Notice, string> = {
  started: "The task is started. The agent's reply appears below when it comes.",
  sent: "Your message is sent. The agent's reply appears below when it comes.",
  stopped: "The turn is stopped. Send a follow-up to start another.",
};
