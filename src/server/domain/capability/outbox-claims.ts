// Sending each queued e-mail once across instances: an instance claims a delivery row (store/claims.ts, with a
// lease it renews while the SMTP exchange runs) before sending it, and only the claimer records the outcome; a
// dead claimer's row is taken over by any instance once its lease has run out.
import { anyClaimable, claimNext, finishClaim } from "../../store/claims.js";
import type { Store } from "../../store/store.js";
import { type DeliveryState, MAX_DELIVERY_ATTEMPTS, retryDelayMs } from "./outbox.js";

const DELIVERY_CLAIM = { table: "notification_deliveries" } as const;

export interface DueDelivery {
  id: string;
  notificationId: string;
  recipient: string;
  attempts: number;
  subject: string;
  text: string;
  /** The instance holding the claim: only it may record the outcome. */
  owner: string;
}

/** Claims the longest-due pending delivery no live instance holds, for `owner` until `nowMs + leaseMs`. */
export async function claimDueDelivery(
  db: Store,
  claim: { owner: string; leaseMs: number; nowMs: number },
): Promise<DueDelivery | undefined> {
  const row = await claimNext(db, {
    ...DELIVERY_CLAIM,
    ready: "state = 'pending' AND next_attempt_at_ms <= ?",
    params: [claim.nowMs],
    order: "next_attempt_at_ms, id",
    owner: claim.owner,
    leaseMs: claim.leaseMs,
    now: claim.nowMs,
  });
  if (!row) return undefined;
  const note = (await db.get("SELECT subject, body_text AS text FROM notifications WHERE id = ?", [
    row.notification_id as string,
  ])) as { subject: string; text: string };
  return {
    id: String(row.id),
    notificationId: row.notification_id as string,
    recipient: row.recipient as string,
    attempts: Number(row.attempts),
    subject: note.subject,
    text: note.text,
    owner: claim.owner,
  };
}

/** Records the message sent; false (nothing written) when another instance took the row over. */
export function markDelivered(db: Store, due: DueDelivery, now: Date): Promise<boolean> {
  return finishClaim(db, {
    ...DELIVERY_CLAIM,
    id: due.id,
    owner: due.owner,
    set: { state: "sent", attempts: due.attempts + 1, sent_at: now.toISOString(), last_error: null },
  });
}

/** Records a failed attempt: retried later, or `failed` after MAX_DELIVERY_ATTEMPTS. `error` never holds a secret. */
export function markAttemptFailed(db: Store, due: DueDelivery, error: string, now: Date): Promise<boolean> {
  const attempts = due.attempts + 1;
  const state: DeliveryState = attempts >= MAX_DELIVERY_ATTEMPTS ? "failed" : "pending";
  return finishClaim(db, {
    ...DELIVERY_CLAIM,
    id: due.id,
    owner: due.owner,
    set: {
      state,
      attempts,
      last_error: error.slice(0, 300),
      next_attempt_at_ms: now.getTime() + retryDelayMs(attempts),
    },
  });
}

/**
 * Whether any pending delivery is due and free to claim: a read, so an idle sender polls without a write
 * transaction every time.
 */
export function anyDeliveryClaimable(db: Store, nowMs: number): Promise<boolean> {
  return anyClaimable(db, {
    table: "notification_deliveries",
    ready: "state = 'pending' AND next_attempt_at_ms <= ?",
    params: [nowMs],
    now: nowMs,
  });
}
