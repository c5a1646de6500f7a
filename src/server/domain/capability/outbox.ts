// The durable e-mail outbox: a notification row plus one delivery row per recipient, written by the caller inside
// the same transaction as the state change, so a request is never recorded without its e-mail or vice versa.
// Instances sharing the store claim a delivery row before sending it (outbox-claims.ts).
import type { DELIVERY_STATES } from "../../../transport/wire.js";
import type { Store } from "../../store/store.js";
import type { NotificationKind } from "./render-email.js";

export type DeliveryState = (typeof DELIVERY_STATES)[number];
export const MAX_DELIVERY_ATTEMPTS = 3;
/** Wait before attempt n+1 (n = attempts so far). */
export const retryDelayMs = (attempts: number): number => Math.min(30_000, 500 * 4 ** (attempts - 1));

export interface DeliveryRow {
  notificationId: string;
  recipient: string;
  state: DeliveryState;
  attempts: number;
  lastError: string | null;
  sentAt: string | null;
}
export interface NotificationRow {
  id: string;
  requestId: string;
  kind: NotificationKind;
  createdAt: string;
  deliveries: DeliveryRow[];
}

export async function recipientsFor(db: Store, workspaceId: string): Promise<string[]> {
  const rows = (await db.all(
    "SELECT email FROM members WHERE workspace_id = ? AND role IN ('owner', 'admin') ORDER BY email",
    [workspaceId],
  )) as { email: string }[];
  return rows.map((r) => r.email);
}

/** Call inside the transaction that changes the request. */
export async function enqueueNotification(
  db: Store,
  input: {
    id: string;
    requestId: string;
    kind: NotificationKind;
    subject: string;
    text: string;
    recipients: string[];
  },
  now: Date,
): Promise<void> {
  await db.run(
    "INSERT INTO notifications (id, request_id, kind, subject, body_text, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    [input.id, input.requestId, input.kind, input.subject, input.text, now.toISOString()],
  );
  for (const recipient of input.recipients) {
    await db.run(
      "INSERT INTO notification_deliveries (id, notification_id, recipient, state, attempts, next_attempt_at_ms) VALUES (?, ?, ?, 'pending', 0, ?)",
      [deliveryRowId(input.id, recipient), input.id, recipient, now.getTime()],
    );
  }
}

/** A delivery row's claim key: one per notification and recipient. */
export const deliveryRowId = (notificationId: string, recipient: string): string =>
  `${notificationId} ${recipient}`;

/** Puts every failed delivery of a request's notifications back in the queue; sent ones are left alone. */
export async function requeueFailedDeliveries(
  db: Store,
  requestId: string,
  now: Date,
): Promise<{ notificationId: string; recipient: string }[]> {
  const rows = (await db.all(
    `SELECT d.notification_id AS "notificationId", d.recipient FROM notification_deliveries d
       JOIN notifications n ON n.id = d.notification_id WHERE n.request_id = ? AND d.state = 'failed'`,
    [requestId],
  )) as { notificationId: string; recipient: string }[];
  for (const row of rows) {
    await db.run(
      "UPDATE notification_deliveries SET state = 'pending', attempts = 0, next_attempt_at_ms = ? WHERE notification_id = ? AND recipient = ?",
      [now.getTime(), row.notificationId, row.recipient],
    );
  }
  return rows;
}

export async function notificationsOf(db: Store, requestId: string): Promise<NotificationRow[]> {
  const notes = (await db.all(
    `SELECT id, request_id AS "requestId", kind, created_at AS "createdAt" FROM notifications WHERE request_id = ? ORDER BY created_at, id`,
    [requestId],
  )) as unknown as Omit<NotificationRow, "deliveries">[];
  const result: NotificationRow[] = [];
  for (const n of notes) {
    const deliveries = (await db.all(
      `SELECT notification_id AS "notificationId", recipient, state, attempts, last_error AS "lastError", sent_at AS "sentAt"
       FROM notification_deliveries WHERE notification_id = ? ORDER BY recipient`,
      [n.id],
    )) as unknown as DeliveryRow[];
    result.push({ ...n, deliveries });
  }
  return result;
}
