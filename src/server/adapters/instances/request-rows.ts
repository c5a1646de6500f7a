// The rows of `instance_requests` (migration 99): a request addressed to one instance, taken by it, answered by
// it. Each change notifies: a new request on WAKE_CHANNELS.instanceRequests with its target's id (the target
// wakes), a take or an answer on WAKE_CHANNELS.instanceAnswers with the request's id (the asker wakes).
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS } from "../../store/wake-channels.js";

export type RequestState = "pending" | "taken" | "answered";

export interface NewRequest {
  id: string;
  target: string;
  kind: string;
  body: string;
  nowMs: number;
  expiresAtMs: number;
}

export async function insertRequest(db: Store, request: NewRequest): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO instance_requests (id, target_instance, kind, body, state, created_at_ms, expires_at_ms)
       VALUES (?, ?, ?, ?, 'pending', ?, ?)`,
      [request.id, request.target, request.kind, request.body, request.nowMs, request.expiresAtMs],
    );
    tx.notify(WAKE_CHANNELS.instanceRequests, request.target);
  });
}

/** Takes the oldest pending request addressed to `me` that has not expired; undefined when there is none. */
export async function takeNextRequest(
  db: Store,
  me: string,
  nowMs: number,
): Promise<{ id: string; kind: string; body: string } | undefined> {
  return db.transaction(async (tx) => {
    const row = await tx.get<{ id: string; kind: string; body: string }>(
      `UPDATE instance_requests SET state = 'taken'
       WHERE state = 'pending' AND id = (SELECT id FROM instance_requests
         WHERE target_instance = ? AND state = 'pending' AND expires_at_ms > ?
         ORDER BY created_at_ms LIMIT 1${db.dialect.skipLocked})
       RETURNING id, kind, body`,
      [me, nowMs],
    );
    if (row) tx.notify(WAKE_CHANNELS.instanceAnswers, row.id);
    return row;
  });
}

/** Whether any request waits for `me` (a read: the fallback poll costs no write). */
export async function anyRequestFor(db: Store, me: string, nowMs: number): Promise<boolean> {
  return (
    (await db.get(
      "SELECT 1 AS due FROM instance_requests WHERE target_instance = ? AND state = 'pending' AND expires_at_ms > ? LIMIT 1",
      [me, nowMs],
    )) !== undefined
  );
}

export async function answerRequest(db: Store, id: string, answer: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(
      "UPDATE instance_requests SET state = 'answered', answer = ? WHERE id = ? AND state = 'taken'",
      [answer, id],
    );
    tx.notify(WAKE_CHANNELS.instanceAnswers, id);
  });
}

export async function readRequest(
  db: Store,
  id: string,
): Promise<{ state: RequestState; answer: string | null } | undefined> {
  return db.get("SELECT state, answer FROM instance_requests WHERE id = ?", [id]);
}

/** Withdraws a request its target never took; false when the target took it meanwhile. */
export async function withdrawRequest(db: Store, id: string): Promise<boolean> {
  const { changes } = await db.run("DELETE FROM instance_requests WHERE id = ? AND state = 'pending'", [id]);
  return changes === 1;
}

export async function deleteRequest(db: Store, id: string): Promise<void> {
  await db.run("DELETE FROM instance_requests WHERE id = ?", [id]);
}

/** Rows whose asker died while waiting: past their deadline by more than `graceMs`. */
export async function deleteExpiredRequests(db: Store, nowMs: number, graceMs: number): Promise<number> {
  const { changes } = await db.run("DELETE FROM instance_requests WHERE expires_at_ms < ?", [
    nowMs - graceMs,
  ]);
  return changes;
}
