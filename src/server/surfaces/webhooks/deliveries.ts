// The durable queue of webhook deliveries (`webhook_deliveries`): a verified delivery is committed before the
// platform gets its answer, deduplicated by (source, delivery id) with a unique key (so two instances receiving
// the same delivery at once queue it once), and claimed oldest first by one instance at a time, with a lease.
// Each row ends `done` or `failed` with a short outcome for operators. Done rows are kept for the dedup window,
// then pruned.
import { type ClaimedRow, claimNext, finishClaim } from "../../store/claims.js";
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS, WORK_QUEUES } from "../../store/wake-channels.js";
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
  const duplicate = Number(result.changes) === 0;
  // Every instance's webhook worker wakes once this commits (it polls only as a fallback).
  if (!duplicate) db.current()?.notify(WAKE_CHANNELS.workQueues, WORK_QUEUES.webhooks);
  return { duplicate };
}

interface Row {
  seq: number;
  source: WebhookSource;
  delivery_id: string;
  event: string;
  payload: string;
  attempts: number;
}

/** The claim table's key, for finishing a claimed delivery. */
export const DELIVERY_CLAIM = { table: "webhook_deliveries", key: "seq" } as const;

/**
 * Claims the oldest queued delivery that is due and that no live instance holds, for `owner` until
 * `nowMs + leaseMs` (renewed while it is worked). One instance at a time works a delivery; a dead claimer's
 * delivery is claimable again once its lease has run out.
 */
export async function claimDueDelivery(
  db: Store,
  claim: { owner: string; leaseMs: number; nowMs: number },
): Promise<Delivery | undefined> {
  const row = (await claimNext(db, {
    ...DELIVERY_CLAIM,
    ready: "state = 'queued' AND next_attempt_at_ms <= ?",
    params: [claim.nowMs],
    order: "seq",
    owner: claim.owner,
    leaseMs: claim.leaseMs,
    now: claim.nowMs,
  })) as (ClaimedRow & Row) | undefined;
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

/**
 * When a queued delivery may next be claimed: its retry's time, or, while an instance holds it, just after that
 * instance's lease (so a dead claimer's delivery is taken over without a hot loop over a held one).
 */
export async function nextDeliveryDueAt(db: Store): Promise<number | undefined> {
  const row = (await db.get(
    `SELECT min(CASE WHEN claimed_by IS NULL OR lease_until_ms < next_attempt_at_ms THEN next_attempt_at_ms
       ELSE lease_until_ms + 1 END) AS at FROM webhook_deliveries WHERE state = 'queued'`,
  )) as { at: number | null } | undefined;
  return row?.at ?? undefined;
}

/** Records the end of a delivery `owner` holds; false (nothing written) when another instance took it over. */
export async function recordDeliveryEnd(
  db: Store,
  held: { seq: number; owner: string },
  end: { state: "done" | "failed"; outcome: string; attempts: number },
): Promise<boolean> {
  return finishClaim(db, {
    ...DELIVERY_CLAIM,
    id: held.seq,
    owner: held.owner,
    set: { state: end.state, outcome: end.outcome.slice(0, 500), attempts: end.attempts },
  });
}

/** Gives a delivery `owner` holds back to the queue for a retry at `nextAttemptAtMs`. */
export async function recordDeliveryRetry(
  db: Store,
  held: { seq: number; owner: string },
  retry: { outcome: string; attempts: number; nextAttemptAtMs: number },
): Promise<boolean> {
  return finishClaim(db, {
    ...DELIVERY_CLAIM,
    id: held.seq,
    owner: held.owner,
    set: {
      outcome: retry.outcome.slice(0, 500),
      attempts: retry.attempts,
      next_attempt_at_ms: retry.nextAttemptAtMs,
    },
  });
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
