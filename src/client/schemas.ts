// The public API's answers as the client reads them (reference section 2), parsed once at the boundary. Looser
// than the service's own schemas where the reference says values may grow: a status, source or role the client
// does not know is kept as text rather than refused, so an older client keeps working against a newer service.
import * as z from "zod";

const Timestamp = z.string().min(1);

export const TaskSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  source: z.string(),
  title: z.string().nullable(),
  repo: z.string().nullable(),
  pullRequest: z.object({ url: z.string(), merged: z.boolean() }).nullable(),
  queued: z.boolean(),
  /** Ours (DESIGN "Billing and pauses"): why a paused task waits. */
  pausedOn: z.string().nullable().optional(),
  createdAt: Timestamp,
  lastActivityAt: Timestamp,
  url: z.string().optional(),
});
export type Task = z.infer<typeof TaskSchema>;

export const MessageSchema = z.object({
  id: z.string().min(1),
  messageId: z.string().nullable(),
  role: z.string().min(1),
  kind: z.string().min(1),
  body: z.string(),
  createdAt: Timestamp,
});
export type Message = z.infer<typeof MessageSchema>;

export const WorkspaceSchema = z.object({ id: z.string().min(1), name: z.string(), role: z.string() });
export type Workspace = z.infer<typeof WorkspaceSchema>;

export const MeSchema = z.object({
  user: z.object({ id: z.string().min(1), codehostLogin: z.string(), name: z.string() }),
  workspaces: z.array(WorkspaceSchema),
});
export type Me = z.infer<typeof MeSchema>;

export const TaskListSchema = z.object({ tasks: z.array(TaskSchema), nextCursor: z.string().nullable() });
export type TaskList = z.infer<typeof TaskListSchema>;

export const MessageListSchema = z.object({ messages: z.array(MessageSchema), next: z.string().nullable() });
export type MessageList = z.infer<typeof MessageListSchema>;

export const StartedTaskSchema = z.object({ task: TaskSchema, messageId: z.string().min(1) });
export type StartedTask = z.infer<typeof StartedTaskSchema>;

export const MessageAcceptedSchema = z.object({ messageId: z.string().min(1) });
export const StopAcceptedSchema = z.object({ accepted: z.literal(true) });

/** The error body (section 2 "Error body"); every key but `error` is optional. */
export const ApiErrorBodySchema = z.object({
  error: z.string().min(1),
  reason: z.string().optional(),
  requestId: z.string().optional(),
  refusal: z.string().optional(),
  billingUrl: z.string().optional(),
  settingsUrl: z.string().optional(),
  plan: z.string().optional(),
  running: z.number().optional(),
  queued: z.number().optional(),
  taskId: z.string().optional(),
  messageId: z.string().optional(),
  limit: z.number().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;

export interface StartTaskBody {
  prompt: string;
  title?: string | null;
  repo?: string | null;
}
