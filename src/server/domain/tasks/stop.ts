// POST /v1/workspaces/{id}/tasks/{taskId}/stop: any member stops the queued or running turn of any task of the
// workspace; a task with neither answers 409 `not_running` (reference section 3, fact 4).

import type { User } from "../auth/users.js";
import { domainError } from "../errors.js";
import type { TaskContext } from "./context.js";
import { stopTask } from "./engine.js";
import { requireTask } from "./send-message.js";

export async function stopTaskTurn(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  user: User,
): Promise<{ accepted: true }> {
  await requireTask(ctx, workspaceId, taskId);
  const result = await ctx.commit(() => stopTask(ctx.db, taskId, user.name, ctx.now()));
  if (!result.stopped)
    throw domainError("not_running", "the task has no running or queued turn; send a follow-up to start one");
  if (result.wasRunning) ctx.abortTurn(result.turnId);
  else await ctx.taskStopped?.(taskId);
  ctx.runTurns(result.started);
  return { accepted: true };
}
