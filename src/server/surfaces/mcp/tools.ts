// The seven tools (reference section 4 "MCP endpoint"): each calls the same domain function as its HTTP route
// and answers the same JSON. Membership of the workspace is read on every call (not a member reads as
// not_found); a refusal is a DomainError, which the server turns into a tool execution error (tool-results.ts).
import type { z } from "zod";
import { AUDIT_EVENTS, logAuditEvent } from "../../../audit/events.js";
import type { AuthenticatedToken } from "../../domain/auth/personal-tokens-store.js";
import { type Membership, membershipOf } from "../../domain/auth/users.js";
import { whoAmI } from "../../domain/auth/who-am-i.js";
import { domainError } from "../../domain/errors.js";
import { listMessages, listTasks, readTask } from "../../domain/tasks/read-tasks.js";
import { sendMessage } from "../../domain/tasks/send-message.js";
import { startTask } from "../../domain/tasks/start-task.js";
import { stopTaskTurn } from "../../domain/tasks/stop.js";
import {
  AcceptedSchema,
  MeSchema,
  MessageIdSchema,
  MessageListSchema,
  StartTaskResponseSchema,
  TaskListSchema,
  TaskSchema,
} from "../api/schemas.js";
import type { McpDeps } from "./deps.js";
import { TOOL_INPUTS, type ToolInput, type ToolName } from "./tool-inputs.js";

export interface ToolCall {
  deps: McpDeps;
  caller: AuthenticatedToken;
  requestId: string;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint: boolean;
}

export interface ToolDefinition<N extends ToolName> {
  title: string;
  description: string;
  annotations: ToolAnnotations;
  outputSchema: z.ZodType;
  run: (call: ToolCall, input: ToolInput<N>) => unknown;
}

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };
/** Starts agent work that can push branches and open pull requests on the code host. */
const OPEN_WORLD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: true };

/** The caller's membership of the workspace, read on every call; not a member reads as no such workspace. */
async function member(call: ToolCall, workspaceId: string): Promise<Membership> {
  const membership = await membershipOf(call.deps.db, call.caller.user, workspaceId);
  if (!membership) throw domainError("not_found", "no such workspace; the whoami tool lists yours");
  return membership;
}

const optional = (value: number | undefined): string | null => (value === undefined ? null : String(value));

export const TOOLS: { [N in ToolName]: ToolDefinition<N> } = {
  whoami: {
    title: "Who am I",
    description:
      "Your user and the workspaces you belong to, with your role in each (same JSON as GET /v1/me).",
    annotations: READ_ONLY,
    outputSchema: MeSchema,
    run: (call) => whoAmI(call.deps.db, call.caller.user),
  },
  list_tasks: {
    title: "List tasks",
    description:
      "Tasks of a workspace, most recently active first, one page at a time; pass nextCursor as cursor for the next page.",
    annotations: READ_ONLY,
    outputSchema: TaskListSchema,
    run: async (call, input) =>
      listTasks(call.deps.tasks.context, (await member(call, input.workspace_id)).workspaceId, {
        status: input.status ?? null,
        limit: optional(input.limit),
        cursor: input.cursor ?? null,
      }),
  },
  get_task: {
    title: "Get a task",
    description: "One task of a workspace, whatever its source.",
    annotations: READ_ONLY,
    outputSchema: TaskSchema,
    run: async (call, input) =>
      readTask(call.deps.tasks.context, (await member(call, input.workspace_id)).workspaceId, input.task_id),
  },
  start_task: {
    title: "Start a task",
    description:
      "Starts a coding task from a prompt; the agent works in a sandbox and can push to the code host. Omit repo to let the agent choose. Poll get_messages for the reply.",
    annotations: OPEN_WORLD,
    outputSchema: StartTaskResponseSchema,
    run: async (call, input) => {
      const { workspaceId } = await member(call, input.workspace_id);
      const answer = await startTask(call.deps.tasks.context, {
        workspaceId,
        user: call.caller.user,
        body: { prompt: input.prompt, title: input.title, repo: input.repo },
        idempotencyKey: input.idempotency_key ?? null,
      });
      logAuditEvent(call.deps.logger, AUDIT_EVENTS.taskStarted, {
        requestId: call.requestId,
        actor: call.caller.user.email,
        workspace: workspaceId,
        taskId: answer.task.id,
        surface: "mcp",
      });
      return answer;
    },
  },
  follow_up: {
    title: "Follow up on a task",
    description:
      "Sends a message on a task started from the command-line client, MCP or the API; the agent takes it as its next turn.",
    annotations: OPEN_WORLD,
    outputSchema: MessageIdSchema,
    run: async (call, input) =>
      sendMessage(call.deps.tasks.context, {
        workspaceId: (await member(call, input.workspace_id)).workspaceId,
        taskId: input.task_id,
        user: call.caller.user,
        body: { text: input.text },
        idempotencyKey: input.idempotency_key ?? null,
      }),
  },
  get_messages: {
    title: "Read a task's conversation",
    description:
      "The conversation of a task, oldest first; pass next as after to read on. Poll it to follow a task.",
    annotations: READ_ONLY,
    outputSchema: MessageListSchema,
    run: async (call, input) =>
      listMessages(
        call.deps.tasks.context,
        (await member(call, input.workspace_id)).workspaceId,
        input.task_id,
        {
          after: input.after ?? null,
          limit: optional(input.limit),
        },
      ),
  },
  stop_task: {
    title: "Stop a task",
    description: "Stops the task's running or queued turn; any workspace member may.",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    outputSchema: AcceptedSchema,
    run: async (call, input) => {
      const { workspaceId } = await member(call, input.workspace_id);
      const stopped = await stopTaskTurn(
        call.deps.tasks.context,
        workspaceId,
        input.task_id,
        call.caller.user,
      );
      logAuditEvent(call.deps.logger, AUDIT_EVENTS.taskStopped, {
        requestId: call.requestId,
        actor: call.caller.user.email,
        workspace: workspaceId,
        taskId: input.task_id,
        surface: "mcp",
      });
      return stopped;
    },
  },
};

export const TOOL_NAMES = Object.keys(TOOL_INPUTS) as ToolName[];
