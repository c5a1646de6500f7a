// The task list's opaque cursor: the last task's activity time and its id, base64url-encoded. Keyset paging: a
// page never repeats or skips a task whose activity did not change while the client paged. The id (random) is
// looked up in the list's own workspace, so a cursor from another workspace's list is refused, and the cursor
// carries no store position: nothing in it counts other workspaces' tasks.
import { domainError } from "../errors.js";

export interface TaskCursor {
  activityMs: number;
  taskId: string;
}

const TASK_ID = /^task_[0-9a-f]{32}$/;

export const encodeTaskCursor = (cursor: TaskCursor): string =>
  Buffer.from(`t2.${cursor.activityMs}.${cursor.taskId}`, "utf8").toString("base64url");

export const malformedCursor = () =>
  domainError("invalid_cursor", "cursor is malformed; pass the nextCursor of the previous page as it was");

export function decodeTaskCursor(value: string | null | undefined): TaskCursor | null {
  if (value === null || value === undefined) return null;
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(value)) throw malformedCursor();
  const match = /^t2\.([0-9]{1,15})\.([^.]+)$/.exec(Buffer.from(value, "base64url").toString("utf8"));
  if (!match || !TASK_ID.test(match[2]!)) throw malformedCursor();
  return { activityMs: Number(match[1]), taskId: match[2]! };
}
