// Idempotency records of the public API (reference section 4, "Idempotency"): a key belongs to its sender, names
// one request's content, and becomes the message's `messageId`. A record is saved with the task and message in
// one transaction and its answer stored once the hand-over succeeded, so a retry after a crash between the two
// finds the saved work and finishes it instead of doing it again.
import { createHash } from "node:crypto";
import { idempotencyLock } from "../../store/lock-keys.js";
import type { Store } from "../../store/store.js";
import { domainError } from "../errors.js";

export interface IdempotencyRecord {
  requestHash: string;
  taskId: string;
  messageId: string;
  messageEntryId: string;
  /** The stored answer, or null while the request is saved but not yet handed over. */
  response: unknown | null;
}

/** One hash per request content: the operation, where it goes, and every field that must match on retry. */
export function hashRequest(content: Record<string, string | null>): string {
  const canonical = JSON.stringify(
    Object.keys(content)
      .sort()
      .map((key) => [key, content[key]]),
  );
  return createHash("sha256").update(canonical, "utf8").digest("hex");
}

export async function findRecord(
  db: Store,
  userId: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const row = (await db.get(
    `SELECT request_hash, task_id, message_id, message_entry_id, response_json FROM api_idempotency
     WHERE user_id = ? AND idempotency_key = ?`,
    [userId, key],
  )) as
    | {
        request_hash: string;
        task_id: string;
        message_id: string;
        message_entry_id: string;
        response_json: string | null;
      }
    | undefined;
  return (
    row && {
      requestHash: row.request_hash,
      taskId: row.task_id,
      messageId: row.message_id,
      messageEntryId: row.message_entry_id,
      response: row.response_json === null ? null : JSON.parse(row.response_json),
    }
  );
}

/**
 * The earlier request with this key, when its content matches; 409 `idempotency_conflict` when it does not.
 * Called in the transaction that saves the request: it first takes the key's lock, so a simultaneous request
 * with the same key (on this instance or another) waits for this one to commit and then finds its record,
 * instead of both finding none and the second failing on the record's primary key.
 */
export async function replayable(
  db: Store,
  userId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyRecord | undefined> {
  await db.current()?.lock(idempotencyLock(userId, key));
  const record = await findRecord(db, userId, key);
  if (record && record.requestHash !== requestHash)
    throw domainError(
      "idempotency_conflict",
      "this Idempotency-Key was already used with a different request; use a new key for new content",
    );
  return record;
}

export async function saveRecord(
  db: Store,
  userId: string,
  key: string,
  record: Omit<IdempotencyRecord, "response">,
  now: Date,
): Promise<void> {
  await db.run(
    `INSERT INTO api_idempotency (user_id, idempotency_key, request_hash, task_id, message_id, message_entry_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [
      userId,
      key,
      record.requestHash,
      record.taskId,
      record.messageId,
      record.messageEntryId,
      now.toISOString(),
    ],
  );
}

export async function storeAnswer(db: Store, userId: string, key: string, response: unknown): Promise<void> {
  await db.run("UPDATE api_idempotency SET response_json = ? WHERE user_id = ? AND idempotency_key = ?", [
    JSON.stringify(response),
    userId,
    key,
  ]);
}
