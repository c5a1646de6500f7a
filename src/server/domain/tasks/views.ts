// The public API's shapes of a task and a conversation entry (reference section 2), built from store rows.

import type { PauseReason, TaskSource, TaskStatus } from "./statuses.js";
import type { EntryRow, TaskRow } from "./task-store.js";

export interface ApiTask {
  id: string;
  status: TaskStatus;
  source: TaskSource;
  title: string | null;
  repo: string | null;
  pullRequest: { url: string; merged: boolean } | null;
  queued: boolean;
  /** Ours (DESIGN "Billing and pauses"): why a `paused` task waits; null otherwise. */
  pausedOn: PauseReason | null;
  createdAt: string;
  lastActivityAt: string;
  url: string;
}

export interface ApiMessage {
  id: string;
  messageId: string | null;
  role: EntryRow["role"];
  kind: EntryRow["kind"];
  body: string;
  createdAt: string;
}

/** `dashboardBase` has no trailing slash, e.g. `http://127.0.0.1:8080/dashboard`. */
export function toApiTask(row: TaskRow, dashboardBase: string): ApiTask {
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    title: row.title,
    repo: row.repo,
    pullRequest: row.pr_url === null ? null : { url: row.pr_url, merged: row.pr_merged === 1 },
    queued: row.open_turn_state === "queued",
    pausedOn: row.paused_on,
    createdAt: row.created_at,
    lastActivityAt: row.last_activity_at,
    url: `${dashboardBase}/workspaces/${encodeURIComponent(row.workspace_id)}/tasks/${encodeURIComponent(row.id)}`,
  };
}

export function toApiMessage(
  row: Pick<EntryRow, "id" | "message_id" | "role" | "kind" | "body" | "created_at">,
): ApiMessage {
  return {
    id: row.id,
    messageId: row.role === "user" ? row.message_id : null,
    role: row.role,
    kind: row.kind,
    body: row.body,
    createdAt: row.created_at,
  };
}
