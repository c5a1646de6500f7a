// What the task pages read, through the API's own domain functions (domain/tasks/read-tasks.ts): the conversation page by
// page, a task's queue place, and a domain refusal turned into the page's error with the API's status.

import { DomainError } from "../../../domain/errors.js";
import { LIMITS } from "../../../domain/limits.js";
import type { TaskContext } from "../../../domain/tasks/context.js";
import { listLatestMessages, listMessages } from "../../../domain/tasks/read-tasks.js";
import type { ApiMessage } from "../../../domain/tasks/views.js";
import { apiErrorOf } from "../../api/errors.js";
import { HttpError } from "../../http/http-error.js";
import { assignQueuePositions, type QueuePlace } from "./queue.js";

/** A domain refusal as a page error: the API's status for its code, its reason as written. */
export function pageErrorOf(error: unknown): unknown {
  if (!(error instanceof DomainError)) return error;
  const answer = apiErrorOf(error);
  return new HttpError(answer.status, answer.error, answer.reason);
}

export async function queuePlacesOf(ctx: TaskContext, workspaceId: string): Promise<Map<string, QueuePlace>> {
  const turns = (await ctx.db.all(
    `SELECT task_id AS "taskId", seq FROM task_turns WHERE workspace_id = ? AND state = 'queued'`,
    [workspaceId],
  )) as { taskId: string; seq: number }[];
  return assignQueuePositions(turns);
}

export type Conversation = { entries: ApiMessage[] } | { elsewhere: string };

/** Entries a task page shows at once: the API's largest page, so a page costs about what that page costs. */
export const ENTRIES_SHOWN = LIMITS.messagePage.max;

/**
 * A window of a conversation as the task page shows it: the latest entries, or (with `before`, an entry's id) the
 * ones just before that entry; `earlier` is the `before` of the window before this one, null at the start.
 */
export type ConversationWindow =
  | { entries: ApiMessage[]; earlier: string | null; before: string | null }
  | { elsewhere: string };

/** The task page's window: ENTRIES_SHOWN entries, the latest or those before `before`, in one read. */
export async function readConversationWindow(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  before: string | null,
): Promise<ConversationWindow> {
  try {
    const window = await listLatestMessages(ctx, workspaceId, taskId, { before, limit: ENTRIES_SHOWN });
    return { entries: window.messages, earlier: window.earlier, before };
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_an_api_task") return { elsewhere: error.reason };
    throw pageErrorOf(error);
  }
}

/**
 * The entries after `after` (all of them without it), read with GET .../messages' function a page at a time; an
 * issue's task answers its refusal (`not_an_api_task`), whose reason says where the conversation is kept.
 */
export async function readConversation(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  after: string | null = null,
): Promise<Conversation> {
  const entries: ApiMessage[] = [];
  let cursor = after;
  const limit = String(LIMITS.messagePage.max);
  try {
    for (;;) {
      const page = await listMessages(ctx, workspaceId, taskId, { after: cursor, limit });
      entries.push(...page.messages);
      if (page.next === null) return { entries };
      cursor = page.next;
    }
  } catch (error) {
    if (error instanceof DomainError && error.code === "not_an_api_task") return { elsewhere: error.reason };
    throw pageErrorOf(error);
  }
}
