// The seven tools' arguments (reference section 4 "MCP endpoint", snake_case as written there), as zod schemas
// the SDK publishes in tools/list and checks before a tool runs. Types and ranges are checked here, each with a
// message that says what to fix; the text rules (prompt, title, repo, idempotency key) are the engine's own checks
// (domain/tasks/validate.ts), so both surfaces refuse with the same reasons.
import { z } from "zod";
import { LIMITS } from "../../domain/limits.js";

const id = (what: string) =>
  z
    .string({ error: `${what} is required: a string id` })
    .min(1, { error: `${what} must not be empty` })
    .describe(
      what === "workspace_id" ? "a workspace id; whoami lists yours" : "a task id; list_tasks lists them",
    );

const page = (range: { min: number; max: number; default: number }) => {
  const error = `limit must be a whole number from ${range.min} to ${range.max}`;
  return z
    .number({ error })
    .int({ error })
    .min(range.min, { error })
    .max(range.max, { error })
    .optional()
    .describe(`${range.min} to ${range.max}, default ${range.default}`);
};

const text = (what: string) =>
  z.string({ error: `${what} is required: a string of 1 to 100,000 characters` });

const idempotencyKey = z
  .string({ error: "idempotency_key must be a string" })
  .optional()
  .describe(
    "1 to 128 printable ASCII characters (0x21 to 0x7E), no spaces; a retry with the same key does the work once; becomes the messageId",
  );

export const TOOL_INPUTS = {
  whoami: z.object({}),
  list_tasks: z.object({
    workspace_id: id("workspace_id"),
    status: z.string({ error: "status must be a string" }).optional().describe("only tasks in this status"),
    limit: page(LIMITS.taskPage),
    cursor: z
      .string({ error: "cursor must be a string" })
      .optional()
      .describe("the previous page's nextCursor; opaque"),
  }),
  get_task: z.object({ workspace_id: id("workspace_id"), task_id: id("task_id") }),
  start_task: z.object({
    workspace_id: id("workspace_id"),
    prompt: text("prompt").describe("1 to 100,000 characters after trimming"),
    title: z
      .string({ error: "title must be a string of 1 to 200 characters, or null" })
      .nullable()
      .optional()
      .describe("up to 200 characters; default: the prompt's first line cut to 80"),
    repo: z
      .string({ error: "repo must be owner/name of a connected repository, or null" })
      .nullable()
      .optional()
      .describe("owner/name of a repository connected to the workspace; omit to let the agent choose"),
    idempotency_key: idempotencyKey,
  }),
  follow_up: z.object({
    workspace_id: id("workspace_id"),
    task_id: id("task_id"),
    text: text("text").describe("1 to 100,000 characters after trimming"),
    idempotency_key: idempotencyKey,
  }),
  get_messages: z.object({
    workspace_id: id("workspace_id"),
    task_id: id("task_id"),
    after: z
      .string({ error: "after must be a string: the id of the last entry read" })
      .optional()
      .describe("id of the last entry read; only later entries are returned"),
    limit: page(LIMITS.messagePage),
  }),
  stop_task: z.object({ workspace_id: id("workspace_id"), task_id: id("task_id") }),
} as const;

export type ToolName = keyof typeof TOOL_INPUTS;
export type ToolInput<N extends ToolName> = z.infer<(typeof TOOL_INPUTS)[N]>;
