// Works the webhook queue: oldest due delivery first, claimed by this instance (other instances skip it while
// the lease, renewed during the work, holds), applied by the events module of its source, then recorded `done`
// with what was done (or why it was ignored). A thrown error (a port that failed: the refusal comment could not
// be posted) retries with backoff, up to MAX_ATTEMPTS, then `failed`. Each application is idempotent, so a crash
// mid-apply re-runs it when the lease runs out (on any instance). Done rows past the dedup window are pruned.

import type { Logger } from "pino";
import { describeThrown } from "../../../errors.js";
import { backoffMs, WorkLoop } from "../../domain/tickets/work-loop.js";
import { DEFAULT_QUEUE_LEASE_MS, whileHeld } from "../../store/hold-claim.js";
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS, WORK_QUEUES } from "../../store/wake-channels.js";
import {
  claimDueDelivery,
  DELIVERY_CLAIM,
  type Delivery,
  nextDeliveryDueAt,
  pruneDoneDeliveries,
  recordDeliveryEnd,
  recordDeliveryRetry,
} from "./deliveries.js";

export const MAX_ATTEMPTS = 5;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface WebhookWorkerOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  commit: <T>(work: () => Promise<T>) => Promise<T>;
  /** Applies a delivery; returns its outcome. Throws when a port failed and a retry may succeed. */
  apply: (delivery: Delivery) => Promise<string>;
  /** The first retry's delay (tests make it short). */
  retryBaseMs?: number;
  /** Who claims deliveries: this instance's id (InstanceIdentity.id). */
  owner: string;
  /** How long a claim lasts unless renewed; default DEFAULT_QUEUE_LEASE_MS. */
  leaseMs?: number | undefined;
  /** How often the queue is looked at when no notification woke the worker; default the lease. */
  pollMs?: number | undefined;
}

export class WebhookWorker {
  private readonly loop: WorkLoop;
  private lastPruneMs = 0;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.loop = new WorkLoop({
      step: () => this.step(),
      dueAt: () => nextDeliveryDueAt(options.db),
      now: () => options.now().getTime(),
      // Deliveries other instances queued (or left claimed when they died) wake no one here: look again at least
      // once a lease, so a dead instance's delivery is taken over within about two leases.
      idleMs: options.pollMs ?? options.leaseMs ?? DEFAULT_QUEUE_LEASE_MS,
      // Any instance's new delivery wakes this worker too, so an idle instance shares the work of a busy one.
      wakeOn: (wake) =>
        options.db.listen(WAKE_CHANNELS.workQueues, (queue) => {
          if (queue === WORK_QUEUES.webhooks || queue === "") wake();
        }),
    });
  }

  /** Starts working what is queued, what a crash left included. */
  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async step(): Promise<boolean> {
    const { db, commit, logger } = this.options;
    const nowMs = this.options.now().getTime();
    if (nowMs - this.lastPruneMs > PRUNE_EVERY_MS) {
      this.lastPruneMs = nowMs;
      await commit(() => pruneDoneDeliveries(db, nowMs));
    }
    const { owner } = this.options;
    const leaseMs = this.options.leaseMs ?? DEFAULT_QUEUE_LEASE_MS;
    const delivery = await claimDueDelivery(db, { owner, leaseMs, nowMs });
    if (!delivery) return false;
    const held = { seq: delivery.seq, owner };
    const attempts = delivery.attempts + 1;
    const log = { source: delivery.source, delivery: delivery.deliveryId, event: delivery.event, attempts };
    const hold = { ...DELIVERY_CLAIM, id: delivery.seq, owner };
    const renewal = {
      leaseMs,
      now: () => this.options.now().getTime(),
      onError: (error: unknown) =>
        logger.warn({ ...log, err: describeThrown(error) }, "could not renew a webhook delivery's lease"),
    };
    const recorded = await whileHeld(db, hold, renewal, async () => {
      try {
        const outcome = await this.options.apply(delivery);
        const kept = await commit(() => recordDeliveryEnd(db, held, { state: "done", outcome, attempts }));
        if (kept) logger.info({ ...log, outcome }, "webhook delivery applied");
        return kept;
      } catch (error) {
        const why = `attempt ${attempts} failed: ${describeThrown(error)}`;
        if (attempts >= MAX_ATTEMPTS) {
          const kept = await commit(() =>
            recordDeliveryEnd(db, held, { state: "failed", outcome: why, attempts }),
          );
          if (kept) logger.warn({ ...log, outcome: why }, "webhook delivery failed");
          return kept;
        }
        const nextAttemptAtMs = this.options.now().getTime() + backoffMs(attempts, this.options.retryBaseMs);
        const kept = await commit(() =>
          recordDeliveryRetry(db, held, { outcome: why, attempts, nextAttemptAtMs }),
        );
        if (kept) logger.info({ ...log, outcome: why }, "webhook delivery will be retried");
        return kept;
      }
    });
    // Our lease ran out mid-work (a stall longer than the lease) and another instance took the delivery over:
    // its outcome is the one recorded; applying is idempotent, so the second application changed nothing twice.
    if (!recorded)
      logger.warn(log, "a webhook delivery was taken over by another instance before it was recorded");
    return true;
  }
}
