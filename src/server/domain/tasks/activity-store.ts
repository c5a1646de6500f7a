// Rows of task_turn_activity: one per turn that recorded what the agent did. Written inside the transaction that
// ends the turn (engine.ts); read a page of turns at a time, metadata first so a page never loads JSON it drops.
import type { Store } from "../../store/store.js";
import type { KeptActivity } from "./activity-bound.js";
import type { TurnState } from "./statuses.js";

export interface ActivityTurnRow {
  turn_id: string;
  turn_seq: number;
  turn_number: number;
  record_count: number;
  dropped_count: number;
  chars: number;
  created_at: string;
  /** The turn's own facts (joined). */
  state: TurnState;
  started_at: string | null;
  ended_at: string | null;
}

/** Keeps a turn's activity; a turn has one row at most (a second write for it changes nothing). */
export async function insertTurnActivity(
  db: Store,
  turn: { id: string; taskId: string; seq: number },
  kept: KeptActivity,
  now: Date,
): Promise<void> {
  const position = await db.get<{ n: number }>(
    "SELECT count(*) AS n FROM task_turns WHERE task_id = ? AND seq <= ?",
    [turn.taskId, turn.seq],
  );
  await db.run(
    `INSERT INTO task_turn_activity (turn_id, task_id, turn_seq, turn_number, records_json, record_count,
       dropped_count, chars, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (turn_id) DO NOTHING`,
    [
      turn.id,
      turn.taskId,
      turn.seq,
      Number(position?.n ?? 1),
      kept.json,
      kept.records,
      kept.dropped,
      kept.json.length,
      now.toISOString(),
    ],
  );
}

/** The turn_seq of a turn of this task that has activity (the `after` cursor), or undefined. */
export async function activityTurnSeq(
  db: Store,
  taskId: string,
  turnId: string,
): Promise<number | undefined> {
  const row = await db.get<{ turn_seq: number }>(
    "SELECT turn_seq FROM task_turn_activity WHERE turn_id = ? AND task_id = ?",
    [turnId, taskId],
  );
  return row === undefined ? undefined : Number(row.turn_seq);
}

/** Up to `limit` turns with activity after `afterSeq`, in the turns' order, without their records. */
export async function activityTurns(
  db: Store,
  taskId: string,
  afterSeq: number,
  limit: number,
): Promise<ActivityTurnRow[]> {
  return db.all<ActivityTurnRow>(
    `SELECT a.turn_id, a.turn_seq, a.turn_number, a.record_count, a.dropped_count, a.chars, a.created_at,
       t.state, t.started_at, t.ended_at
     FROM task_turn_activity a JOIN task_turns t ON t.id = a.turn_id
     WHERE a.task_id = ? AND a.turn_seq > ? ORDER BY a.turn_seq LIMIT ?`,
    [taskId, afterSeq, limit],
  );
}

/** The last `limit` turns with activity, in the turns' order, without their records; and how many came before. */
export async function latestActivityTurns(
  db: Store,
  taskId: string,
  limit: number,
): Promise<{ turns: ActivityTurnRow[]; earlier: number }> {
  const newest = await db.all<ActivityTurnRow>(
    `SELECT a.turn_id, a.turn_seq, a.turn_number, a.record_count, a.dropped_count, a.chars, a.created_at,
       t.state, t.started_at, t.ended_at
     FROM task_turn_activity a JOIN task_turns t ON t.id = a.turn_id
     WHERE a.task_id = ? ORDER BY a.turn_seq DESC LIMIT ?`,
    [taskId, limit],
  );
  const all = await db.get<{ n: number }>("SELECT count(*) AS n FROM task_turn_activity WHERE task_id = ?", [
    taskId,
  ]);
  return { turns: newest.reverse(), earlier: Number(all?.n ?? 0) - newest.length };
}

/** The records (a JSON array) of each of these turns. */
export async function activityRecordsOf(db: Store, turnIds: readonly string[]): Promise<Map<string, string>> {
  if (turnIds.length === 0) return new Map();
  const rows = await db.all<{ turn_id: string; records_json: string }>(
    `SELECT turn_id, records_json FROM task_turn_activity WHERE turn_id IN (${turnIds.map(() => "?").join(", ")})`,
    turnIds,
  );
  return new Map(rows.map((row) => [row.turn_id, row.records_json]));
}
