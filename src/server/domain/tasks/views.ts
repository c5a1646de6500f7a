// The public API's shapes of a task and a conversation entry (reference section 2), built from store rows.

import type { ActivityRecord } from "../../adapters/agents/port.js";
import type { ActivityTurnRow } from "./activity-store.js";
import type { PauseReason, TaskSource, TaskStatus, TurnState } from "./statuses.js";
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

/** Ours: one turn's activity (GET .../activity). */
export interface ApiActivityTurn {
  turnId: string;
  /** The turn's place among the task's turns, from 1. */
  number: number;
  state: TurnState;
  startedAt: string | null;
  endedAt: string | null;
  /** When the activity was kept (as the turn ended). */
  recordedAt: string;
  /** Records the bound dropped (the oldest), 0 when none; the `dropped` marker leads `records` then. */
  dropped: number;
  records: ActivityRecord[];
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

export function toApiActivityTurn(row: ActivityTurnRow, records: ActivityRecord[]): ApiActivityTurn {
  return {
    turnId: row.turn_id,
    number: Number(row.turn_number),
    state: row.state,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    recordedAt: row.created_at,
    dropped: Number(row.dropped_count),
    records,
  };
}
