// The task list's opaque cursor: the last task's activity time and its insertion order, base64url-encoded.
// Keyset paging: a page never repeats or skips a task whose activity did not change while the client paged.
import { apiError } from "../api/errors.js";

export interface TaskCursor {
  activityMs: number;
  seq: number;
}

export const encodeTaskCursor = (cursor: TaskCursor): string =>
  Buffer.from(`t1.${cursor.activityMs}.${cursor.seq}`, "utf8").toString("base64url");

export function decodeTaskCursor(value: string | null | undefined): TaskCursor | null {
  if (value === null || value === undefined) return null;
  const malformed = () =>
    apiError("invalid_cursor", "cursor is malformed; pass the nextCursor of the previous page as it was");
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw malformed();
  const match = /^t1\.([0-9]{1,15})\.([0-9]{1,15})$/.exec(Buffer.from(value, "base64url").toString("utf8"));
  if (!match) throw malformed();
  return { activityMs: Number(match[1]), seq: Number(match[2]) };
}
