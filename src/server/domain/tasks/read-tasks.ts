// The reading routes: one task, the task list (most recently active first, keyset cursor) and a conversation
// (oldest first, `after` an entry of this task), and the conversation's latest entries for the dashboard's task
// page (oldest first too, `before` an entry of this task: the same cursor, read the other way).
import { domainError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { TaskContext } from "./context.js";
import { decodeTaskCursor, encodeTaskCursor } from "./cursor.js";
import { requireApiTask, requireTask } from "./send-message.js";
import type { TaskRow } from "./task-store.js";
import { checkLimit, checkStatusFilter } from "./validate.js";
import { type ApiMessage, type ApiTask, toApiMessage, toApiTask } from "./views.js";

const TASK_SELECT = `SELECT t.*, o.state AS open_turn_state FROM tasks t LEFT JOIN task_turns o ON o.id = t.open_turn_id`;

/** GET .../tasks/{taskId} and the MCP tool `get_task`: one task of the workspace, whatever its source. */
export async function readTask(ctx: TaskContext, workspaceId: string, taskId: string): Promise<ApiTask> {
  return toApiTask(await requireTask(ctx, workspaceId, taskId), ctx.dashboardBase());
}

export async function listTasks(
  ctx: TaskContext,
  workspaceId: string,
  query: { status?: string | null; limit?: string | null; cursor?: string | null },
): Promise<{ tasks: ApiTask[]; nextCursor: string | null }> {
  const status = checkStatusFilter(query.status);
  const limit = checkLimit(query.limit, LIMITS.taskPage);
  const cursor = decodeTaskCursor(query.cursor);
  // The cursor's task must be one of this workspace's: a cursor of another list is not "the previous nextCursor".
  const cursorSeq = cursor
    ? (
        (await ctx.db.get("SELECT seq FROM tasks WHERE id = ? AND workspace_id = ?", [
          cursor.taskId,
          workspaceId,
        ])) as { seq: number } | undefined
      )?.seq
    : undefined;
  if (cursor && cursorSeq === undefined)
    throw domainError(
      "invalid_cursor",
      "cursor is not from this workspace's task list; start again without it",
    );
  const after = cursor ? "AND (t.last_activity_ms < ? OR (t.last_activity_ms = ? AND t.seq < ?))" : "";
  const sql = `${TASK_SELECT} WHERE t.workspace_id = ? ${status ? "AND t.status = ?" : ""} ${after}
    ORDER BY t.last_activity_ms DESC, t.seq DESC LIMIT ?`;
  const params: (string | number)[] = [workspaceId];
  if (status) params.push(status);
  if (cursor) params.push(cursor.activityMs, cursor.activityMs, cursorSeq!);
  params.push(limit + 1);
  const rows = (await ctx.db.all(sql, [...params])) as unknown as TaskRow[];
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    tasks: page.map((row) => toApiTask(row, ctx.dashboardBase())),
    nextCursor:
      rows.length > limit && last
        ? encodeTaskCursor({ activityMs: last.last_activity_ms, taskId: last.id })
        : null,
  };
}

export async function listMessages(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  query: { after?: string | null; limit?: string | null },
): Promise<{ messages: ApiMessage[]; next: string | null }> {
  await requireApiTask(ctx, workspaceId, taskId);
  const limit = checkLimit(query.limit, LIMITS.messagePage);
  const afterSeq =
    query.after === null || query.after === undefined
      ? 0
      : await seqOfEntry(ctx, taskId, query.after, "after", "the id of the last entry you read");
  const rows = (await ctx.db.all(
    "SELECT id, message_id, role, kind, body, created_at FROM task_messages WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    [taskId, afterSeq, limit + 1],
  )) as unknown as Parameters<typeof toApiMessage>[0][];
  const page = rows.slice(0, limit);
  return {
    messages: page.map(toApiMessage),
    next: rows.length > limit ? page.at(-1)!.id : null,
  };
}

/** The position of a cursor's entry in this task's conversation; another task's entry is an invalid cursor. */
async function seqOfEntry(
  ctx: TaskContext,
  taskId: string,
  id: string,
  name: string,
  pass: string,
): Promise<number> {
  const entry = (await ctx.db.get("SELECT seq FROM task_messages WHERE id = ? AND task_id = ?", [
    id,
    taskId,
  ])) as { seq: number } | undefined;
  if (!entry) throw domainError("invalid_cursor", `${name} is not an entry of this task; pass ${pass}`);
  return entry.seq;
}

/**
 * The dashboard's task page: the latest `limit` entries of a conversation (those before the entry `before`, when
 * given), oldest first, as GET .../messages answers entries; `earlier` is the first shown entry's id when older
 * entries exist (the `before` that reads them), else null. One indexed read of `limit + 1` rows, whatever the
 * conversation's length.
 */
export async function listLatestMessages(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  query: { before: string | null; limit: number },
): Promise<{ messages: ApiMessage[]; earlier: string | null }> {
  await requireApiTask(ctx, workspaceId, taskId);
  const params: (string | number)[] = [taskId];
  if (query.before !== null)
    params.push(await seqOfEntry(ctx, taskId, query.before, "before", "the id of an entry of this task"));
  params.push(query.limit + 1);
  const rows = (await ctx.db.all(
    `SELECT id, message_id, role, kind, body, created_at FROM task_messages WHERE task_id = ?${query.before === null ? "" : " AND seq < ?"} ORDER BY seq DESC LIMIT ?`,
    params,
  )) as unknown as Parameters<typeof toApiMessage>[0][];
  const page = rows.slice(0, query.limit).reverse();
  return {
    messages: page.map(toApiMessage),
    earlier: rows.length > query.limit ? (page[0]?.id ?? null) : null,
  };
}
