// Rows of the task engine's tables and the queries over them. Callers hold a transaction when they write.
import { workspaceSlotsLock } from "../../store/lock-keys.js";
import type { Store } from "../../store/store.js";
import type { Plan, SlotCounts } from "./decide.js";
import type { PauseReason, TaskSource, TaskStatus, TurnState } from "./statuses.js";

export interface TaskRow {
  seq: number;
  id: string;
  workspace_id: string;
  source: TaskSource;
  status: TaskStatus;
  paused_on: PauseReason | null;
  title: string | null;
  repo: string | null;
  created_by: string;
  ticket_id: string | null;
  open_turn_id: string | null;
  pr_number: number | null;
  pr_url: string | null;
  pr_branch: string | null;
  pr_merged: number;
  /** 1 once the code host reports the pull request closed without merging. */
  pr_closed: number;
  created_at: string;
  last_activity_at: string;
  last_activity_ms: number;
  /** The open turn's state (joined), null when the task has none. */
  open_turn_state: TurnState | null;
}

export interface TurnRow {
  seq: number;
  id: string;
  task_id: string;
  workspace_id: string;
  state: TurnState;
  attempts: number;
  waited: number;
  closing_entry_id: string | null;
  outcome_code: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  /** The instance running it (from its begin), and until when its lease holds without renewal. */
  claimed_by: string | null;
  lease_until_ms: number | null;
}

export type EntryRole = "user" | "agent" | "platform";
export type EntryKind = "message" | "response" | "clarify" | "error";

export interface EntryRow {
  seq: number;
  id: string;
  task_id: string;
  message_id: string | null;
  role: EntryRole;
  kind: EntryKind;
  body: string;
  author_id: string | null;
  handed_over: number | null;
  turn_id: string | null;
  created_at: string;
}

const TASK_SELECT = `SELECT t.*, o.state AS open_turn_state FROM tasks t LEFT JOIN task_turns o ON o.id = t.open_turn_id`;

export async function getTask(db: Store, taskId: string): Promise<TaskRow | undefined> {
  return (await db.get(`${TASK_SELECT} WHERE t.id = ?`, [taskId])) as TaskRow | undefined;
}

export async function getTaskInWorkspace(
  db: Store,
  workspaceId: string,
  taskId: string,
): Promise<TaskRow | undefined> {
  return (await db.get(`${TASK_SELECT} WHERE t.id = ? AND t.workspace_id = ?`, [taskId, workspaceId])) as
    | TaskRow
    | undefined;
}

export async function insertTask(
  db: Store,
  row: Pick<
    TaskRow,
    "id" | "workspace_id" | "source" | "status" | "title" | "repo" | "created_by" | "ticket_id"
  >,
  now: Date,
): Promise<void> {
  await db.run(
    `INSERT INTO tasks (id, workspace_id, source, status, title, repo, created_by, ticket_id, created_at,
       last_activity_at, last_activity_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.id,
      row.workspace_id,
      row.source,
      row.status,
      row.title,
      row.repo,
      row.created_by,
      row.ticket_id,
      now.toISOString(),
      now.toISOString(),
      now.getTime(),
    ],
  );
}

export async function setTaskState(
  db: Store,
  taskId: string,
  change: { status: TaskStatus; pausedOn: PauseReason | null; openTurnId: string | null },
  now: Date,
): Promise<void> {
  await db.run(
    `UPDATE tasks SET status = ?, paused_on = ?, open_turn_id = ?, last_activity_at = ?, last_activity_ms = ?
     WHERE id = ?`,
    [change.status, change.pausedOn, change.openTurnId, now.toISOString(), now.getTime(), taskId],
  );
}

export async function touchTask(db: Store, taskId: string, now: Date): Promise<void> {
  await db.run("UPDATE tasks SET last_activity_at = ?, last_activity_ms = ? WHERE id = ?", [
    now.toISOString(),
    now.getTime(),
    taskId,
  ]);
}

export async function setPullRequest(
  db: Store,
  taskId: string,
  pr: { repo: string; number: number; url: string; branch: string; merged: boolean },
): Promise<void> {
  // The pull request's repository becomes the task's when the agent chose it.
  await db.run(
    "UPDATE tasks SET repo = coalesce(repo, ?), pr_number = ?, pr_url = ?, pr_branch = ?, pr_merged = ?, pr_closed = 0 WHERE id = ?",
    [pr.repo, pr.number, pr.url, pr.branch, pr.merged ? 1 : 0, taskId],
  );
}

export async function getTurn(db: Store, turnId: string): Promise<TurnRow | undefined> {
  return (await db.get("SELECT * FROM task_turns WHERE id = ?", [turnId])) as TurnRow | undefined;
}

export async function insertTurn(
  db: Store,
  row: { id: string; taskId: string; workspaceId: string; state: TurnState; waited: boolean },
  now: Date,
): Promise<void> {
  await db.run(
    "INSERT INTO task_turns (id, task_id, workspace_id, state, waited, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    [row.id, row.taskId, row.workspaceId, row.state, row.waited ? 1 : 0, now.toISOString()],
  );
}

export async function endTurnRow(
  db: Store,
  turnId: string,
  state: TurnState,
  closingEntryId: string,
  outcomeCode: string | null,
  now: Date,
): Promise<void> {
  await db.run(
    `UPDATE task_turns SET state = ?, closing_entry_id = ?, outcome_code = ?, ended_at = ?, claimed_by = NULL,
       lease_until_ms = NULL WHERE id = ?`,
    [state, closingEntryId, outcomeCode, now.toISOString(), turnId],
  );
}

export async function insertEntry(
  db: Store,
  entry: {
    id: string;
    taskId: string;
    role: EntryRole;
    kind: EntryKind;
    body: string;
    messageId?: string | null;
    authorId?: string | null;
    handedOver?: boolean | null;
    turnId?: string | null;
  },
  now: Date,
  options: { touchTask?: boolean } = {},
): Promise<number> {
  const inserted = await db.get<{ seq: number }>(
    `INSERT INTO task_messages (id, task_id, message_id, role, kind, body, author_id, handed_over, turn_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
    [
      entry.id,
      entry.taskId,
      entry.messageId ?? null,
      entry.role,
      entry.kind,
      entry.body,
      entry.authorId ?? null,
      entry.handedOver === undefined || entry.handedOver === null ? null : entry.handedOver ? 1 : 0,
      entry.turnId ?? null,
      now.toISOString(),
    ],
  );
  // A task inserted at `now` in this transaction already has `now` as its last activity.
  if (options.touchTask ?? true) await touchTask(db, entry.taskId, now);
  return inserted!.seq;
}

export async function getEntry(db: Store, entryId: string): Promise<EntryRow | undefined> {
  return (await db.get("SELECT * FROM task_messages WHERE id = ?", [entryId])) as EntryRow | undefined;
}

/** User messages of a task saved but not yet handed to the engine, oldest first. */
export async function unhandedMessages(db: Store, taskId: string): Promise<EntryRow[]> {
  return (await db.all("SELECT * FROM task_messages WHERE task_id = ? AND handed_over = 0 ORDER BY seq", [
    taskId,
  ])) as unknown as EntryRow[];
}

/** User messages accepted while a turn ran, waiting to become the next turn, oldest first. */
export async function waitingMessages(db: Store, taskId: string): Promise<EntryRow[]> {
  return (await db.all(
    "SELECT * FROM task_messages WHERE task_id = ? AND handed_over = 1 AND turn_id IS NULL ORDER BY seq",
    [taskId],
  )) as unknown as EntryRow[];
}

export async function handOverEntry(db: Store, entryId: string, turnId: string | null): Promise<void> {
  await db.run("UPDATE task_messages SET handed_over = 1, turn_id = ? WHERE id = ?", [turnId, entryId]);
}

export async function attachWaitingMessages(db: Store, taskId: string, turnId: string): Promise<void> {
  await db.run(
    "UPDATE task_messages SET turn_id = ? WHERE task_id = ? AND handed_over = 1 AND turn_id IS NULL",
    [turnId, taskId],
  );
}

export async function conversationOf(db: Store, taskId: string): Promise<EntryRow[]> {
  return (await db.all("SELECT * FROM task_messages WHERE task_id = ? ORDER BY seq", [
    taskId,
  ])) as unknown as EntryRow[];
}

export interface WorkspaceFacts {
  plan: Plan;
  billingActive: boolean;
  codehostConnected: boolean;
  trackerConnected: boolean;
  name: string;
}

export async function workspaceFacts(db: Store, workspaceId: string): Promise<WorkspaceFacts | undefined> {
  const row = (await db.get(
    `SELECT name, plan_name, plan_concurrency, plan_queue_size, billing_state, codehost_connected, tracker_connected
     FROM workspaces WHERE id = ?`,
    [workspaceId],
  )) as
    | {
        name: string;
        plan_name: string;
        plan_concurrency: number;
        plan_queue_size: number;
        billing_state: string;
        codehost_connected: number;
        tracker_connected: number;
      }
    | undefined;
  return (
    row && {
      name: row.name,
      plan: { name: row.plan_name, concurrency: row.plan_concurrency, queueSize: row.plan_queue_size },
      billingActive: row.billing_state === "active",
      codehostConnected: row.codehost_connected === 1,
      trackerConnected: row.tracker_connected === 1,
    }
  );
}

/**
 * The workspace's running and queued turns. In a transaction it first takes the workspace's slots lock: the
 * caller places a turn from these counts, and another instance must not count the same free slot meanwhile.
 */
export async function slotCounts(db: Store, workspaceId: string): Promise<SlotCounts> {
  await db.current()?.lock(workspaceSlotsLock(workspaceId));
  // Both counts in one statement: on PostgreSQL each statement is a round trip, and a task start counts twice.
  const counts = (await db.get(
    `SELECT (SELECT count(*) FROM task_turns WHERE workspace_id = ? AND state = 'running') AS running,
       (SELECT count(*) FROM task_turns WHERE workspace_id = ? AND state = 'queued') AS queued`,
    [workspaceId, workspaceId],
  )) as { running: number; queued: number };
  return { running: counts.running, queued: counts.queued };
}

export async function oldestQueuedTurns(db: Store, workspaceId: string, count: number): Promise<TurnRow[]> {
  if (count <= 0) return [];
  return (await db.all(
    "SELECT * FROM task_turns WHERE workspace_id = ? AND state = 'queued' ORDER BY seq LIMIT ?",
    [workspaceId, count],
  )) as unknown as TurnRow[];
}

export async function startQueuedTurn(db: Store, turnId: string): Promise<void> {
  await db.run("UPDATE task_turns SET state = 'running' WHERE id = ? AND state = 'queued'", [turnId]);
}

export async function openApiTasksOf(db: Store, workspaceId: string, userId: string): Promise<number> {
  return (
    (await db.get(
      `SELECT count(*) AS n FROM tasks WHERE workspace_id = ? AND created_by = ? AND source = 'api'
       AND status IN ('pending', 'implementing')`,
      [workspaceId, userId],
    )) as { n: number }
  ).n;
}
