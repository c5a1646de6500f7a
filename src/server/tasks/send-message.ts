// POST /v1/workspaces/{id}/tasks/{taskId}/messages: a follow-up from any member on a task started from the API,
// client or MCP. Never refused for the running-task limit: it joins or opens a turn, and a full queue is said in
// the conversation (reference section 4, "POST .../messages").
import { apiError } from "../api/errors.js";
import type { User } from "../auth/users.js";
import type { TaskContext } from "./context.js";
import { newEntryId } from "./engine.js";
import { hashRequest, replayable, saveRecord } from "./idempotency.js";
import { saveAndHandOver } from "./start-task.js";
import { getTaskInWorkspace, insertEntry, type TaskRow } from "./task-store.js";
import { checkIdempotencyKey, checkPrompt } from "./validate.js";

export function requireTask(ctx: TaskContext, workspaceId: string, taskId: string): TaskRow {
  const task = getTaskInWorkspace(ctx.db, workspaceId, taskId);
  if (!task) throw apiError("not_found", "no such task in this workspace");
  return task;
}

export function requireApiTask(ctx: TaskContext, workspaceId: string, taskId: string): TaskRow {
  const task = requireTask(ctx, workspaceId, taskId);
  if (task.source !== "api")
    throw apiError(
      "not_an_api_task",
      `this task started from ${task.source === "tracker" ? "the tracker" : "a code-host issue"}; its conversation stays on the issue`,
    );
  return task;
}

export async function sendMessage(
  ctx: TaskContext,
  input: { workspaceId: string; taskId: string; user: User; body: unknown; idempotencyKey: string | null },
): Promise<{ messageId: string }> {
  requireApiTask(ctx, input.workspaceId, input.taskId);
  const key = checkIdempotencyKey(input.idempotencyKey);
  const body = (typeof input.body === "object" && input.body !== null ? input.body : {}) as Record<
    string,
    unknown
  >;
  const text = checkPrompt(body.text, "text");
  const requestHash = hashRequest({ op: "message", workspace: input.workspaceId, task: input.taskId, text });
  const { db } = ctx;
  return saveAndHandOver(
    ctx,
    input.user.id,
    (_task, messageId) => ({ messageId }),
    () => {
      const earlier = key ? replayable(db, input.user.id, key, requestHash) : undefined;
      if (earlier) return earlier;
      const now = ctx.now();
      const entryId = newEntryId("user");
      const messageId = key ?? entryId;
      insertEntry(
        db,
        {
          id: entryId,
          taskId: input.taskId,
          role: "user",
          kind: "message",
          body: text,
          messageId,
          authorId: input.user.id,
          handedOver: false,
        },
        now,
      );
      // A keyless request is recorded under its generated messageId: the key a client retries a 503 with.
      saveRecord(
        db,
        input.user.id,
        messageId,
        { requestHash, taskId: input.taskId, messageId, messageEntryId: entryId },
        now,
      );
      return { taskId: input.taskId, messageId, response: null };
    },
    (saved) => ({ messageId: saved.messageId }),
  );
}
