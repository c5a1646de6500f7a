// followTask's I/O over the public-API client: the task, its conversation after a cursor, the real clock and an
// abortable sleep. Also the cursor a reply is followed from (the conversation's last entry before sending).
import { setTimeout as delay } from "node:timers/promises";
import type { ApiClient } from "./api-client.js";
import type { FollowDeps } from "./follow.js";
import type { FollowEvent } from "./follow-step.js";

/** The messages page size the client asks for: the API's maximum (section 8), so few pages are read. */
const PAGE = 200;

export function followDepsFor(
  api: Pick<ApiClient, "getTask" | "listMessages">,
  workspaceId: string,
  taskId: string,
  emit: (event: FollowEvent) => void,
): FollowDeps {
  return {
    fetchTask: () => api.getTask(workspaceId, taskId),
    fetchEntries: async (after) => {
      const page = await api.listMessages(workspaceId, taskId, {
        limit: PAGE,
        ...(after === null ? {} : { after }),
      });
      return { entries: page.messages, next: page.next };
    },
    now: () => Date.now(),
    sleep: async (ms, signal) => {
      try {
        await delay(ms, undefined, { signal });
      } catch {
        // aborted: the caller stopped waiting; followTask sees the signal
      }
    },
    emit,
  };
}

/** The id of the conversation's last entry (null when empty): a reply is followed from there. */
export async function readLastEntryId(
  api: Pick<ApiClient, "listMessages">,
  workspaceId: string,
  taskId: string,
): Promise<string | null> {
  let last: string | null = null;
  for (let after: string | undefined; ; ) {
    const page = await api.listMessages(workspaceId, taskId, {
      limit: PAGE,
      ...(after === undefined ? {} : { after }),
    });
    last = page.messages.at(-1)?.id ?? last;
    if (page.next === null || page.messages.length === 0) return last;
    after = page.next;
  }
}
