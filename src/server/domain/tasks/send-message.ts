// POST /v1/workspaces/{id}/tasks/{taskId}/messages: a follow-up from any member on a task started from the API,
// client or MCP. Never refused for the running-task limit: it joins or opens a turn, and a full queue is said in
// the conversation (reference section 4, "POST .../messages").

import { taskLock } from "../../store/lock-keys.js";
import type { User } from "../auth/users.js";
import { domainError } from "../errors.js";
import type { TaskContext } from "./context.js";
import { hashRequest, replayable } from "./idempotency.js";
import { bodyObject, saveAndHandOver, saveUserMessage } from "./start-task.js";
import { getTaskInWorkspace, type TaskRow } from "./task-store.js";
import { checkIdempotencyKey, checkPrompt } from "./validate.js";

export async function requireTask(ctx: TaskContext, workspaceId: string, taskId: string): Promise<TaskRow> {
  const task = await getTaskInWorkspace(ctx.db, workspaceId, taskId);
  if (!task) throw domainError("not_found", "no such task in this workspace");
  return task;
}

export async function requireApiTask(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
): Promise<TaskRow> {
  const task = await requireTask(ctx, workspaceId, taskId);
  if (task.source !== "api")
    throw domainError(
      "not_an_api_task",
      `this task started from ${task.source === "tracker" ? "the tracker" : "a code-host issue"}; its conversation stays on the issue`,
    );
  return task;
}

export async function sendMessage(
  ctx: TaskContext,
  input: { workspaceId: string; taskId: string; user: User; body: unknown; idempotencyKey: string | null },
): Promise<{ messageId: string }> {
  await requireApiTask(ctx, input.workspaceId, input.taskId);
  const key = checkIdempotencyKey(input.idempotencyKey);
  const body = bodyObject(input.body);
  const text = checkPrompt(body.text, "text");
  const requestHash = hashRequest({ op: "message", workspace: input.workspaceId, task: input.taskId, text });
  const { db } = ctx;
  return await saveAndHandOver(
    ctx,
    input.user.id,
    (_task, messageId) => ({ messageId }),
    async () => {
      const earlier = key ? await replayable(db, input.user.id, key, requestHash) : undefined;
      if (earlier) return earlier;
      // The task's lock before its first write: a stop or a turn's end on another connection holds it while it
      // writes the same task's rows, and a message written first would make the two wait on each other
      // (PostgreSQL answered "deadlock detected" for follow-ups racing a stop).
      await db.current()?.lock(taskLock(input.taskId));
      const now = ctx.now();
      return saveUserMessage(db, {
        taskId: input.taskId,
        text,
        key,
        userId: input.user.id,
        requestHash,
        now,
      });
    },
    (saved) => ({ messageId: saved.messageId }),
  );
}
