// The durable queue of webhook deliveries (`webhook_deliveries`): a verified delivery is committed before the
// platform gets its answer, deduplicated by (source, delivery id), and worked oldest first. Each row ends `done`
// or `failed` with a short outcome for operators. Done rows are kept for the dedup window, then pruned.
import type { Store } from "../store/store.js";
import type { WebhookSource } from "./wire.js";

export interface Delivery {
  seq: number;
  source: WebhookSource;
  deliveryId: string;
  event: string;
  payload: string;
  attempts: number;
}

/** A redelivery with the same id inside this window is answered `duplicate` and never applied twice. */
export const DEDUP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** Queues the delivery; `duplicate` when this source already has one with that id. */
export async function enqueueDelivery(
  db: Store,
  input: { source: WebhookSource; deliveryId: string; event: string; payload: string },
  nowMs: number,
): Promise<{ duplicate: boolean }> {
  const result = await db.run(
    `INSERT INTO webhook_deliveries (source, delivery_id, event, payload, received_at_ms, next_attempt_at_ms)
     VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (source, delivery_id) DO NOTHING`,
    [input.source, input.deliveryId, input.event, input.payload, nowMs, nowMs],
  );
  return { duplicate: Number(result.changes) === 0 };
}

interface Row {
  seq: number;
  source: WebhookSource;
  delivery_id: string;
  event: string;
  payload: string;
  attempts: number;
}

/** The oldest queued delivery that is due. */
export async function nextDueDelivery(db: Store, nowMs: number): Promise<Delivery | undefined> {
  const row = (await db.get(
    `SELECT seq, source, delivery_id, event, payload, attempts FROM webhook_deliveries
     WHERE state = 'queued' AND next_attempt_at_ms <= ? ORDER BY seq LIMIT 1`,
    [nowMs],
  )) as Row | undefined;
  return (
    row && {
      seq: row.seq,
      source: row.source,
      deliveryId: row.delivery_id,
      event: row.event,
      payload: row.payload,
      attempts: row.attempts,
    }
  );
}

/** When the earliest queued delivery falls due (a retry waiting out its backoff), if any is queued. */
export async function nextDeliveryDueAt(db: Store): Promise<number | undefined> {
  const row = (await db.get(
    "SELECT min(next_attempt_at_ms) AS at FROM webhook_deliveries WHERE state = 'queued'",
  )) as { at: number | null } | undefined;
  return row?.at ?? undefined;
}

export async function recordDeliveryEnd(
  db: Store,
  seq: number,
  end: { state: "done" | "failed"; outcome: string; attempts: number },
): Promise<void> {
  await db.run("UPDATE webhook_deliveries SET state = ?, outcome = ?, attempts = ? WHERE seq = ?", [
    end.state,
    end.outcome.slice(0, 500),
    end.attempts,
    seq,
  ]);
}

export async function recordDeliveryRetry(
  db: Store,
  seq: number,
  retry: { outcome: string; attempts: number; nextAttemptAtMs: number },
): Promise<void> {
  await db.run(
    "UPDATE webhook_deliveries SET outcome = ?, attempts = ?, next_attempt_at_ms = ? WHERE seq = ?",
    [retry.outcome.slice(0, 500), retry.attempts, retry.nextAttemptAtMs, seq],
  );
}

/** Drops done deliveries received before the dedup window; returns how many went. */
export async function pruneDoneDeliveries(db: Store, nowMs: number): Promise<number> {
  const result = await db.run("DELETE FROM webhook_deliveries WHERE state = 'done' AND received_at_ms < ?", [
    nowMs - DEDUP_WINDOW_MS,
  ]);
  return Number(result.changes);
}

export interface DeliveryRecord {
  deliveryId: string;
  event: string;
  state: "queued" | "done" | "failed";
  attempts: number;
  outcome: string | null;
}

/** What operators (and tests) see of a source's deliveries, oldest first. */
export async function deliveriesOf(db: Store, source: WebhookSource): Promise<DeliveryRecord[]> {
  return (
    (await db.all(
      "SELECT delivery_id, event, state, attempts, outcome FROM webhook_deliveries WHERE source = ? ORDER BY seq",
      [source],
    )) as {
      delivery_id: string;
      event: string;
      state: DeliveryRecord["state"];
      attempts: number;
      outcome: string | null;
    }[]
  ).map((r) => ({
    deliveryId: r.delivery_id,
    event: r.event,
    state: r.state,
    attempts: r.attempts,
    outcome: r.outcome,
  }));
}
