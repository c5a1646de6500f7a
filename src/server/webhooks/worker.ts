// Works the webhook queue: oldest due delivery first, applied by the events module of its source, then recorded
// `done` with what was done (or why it was ignored). A thrown error (a port that failed: the refusal comment could
// not be posted) retries with backoff, up to MAX_ATTEMPTS, then `failed`. Each application is idempotent, so a
// crash mid-apply re-runs it at the next start. Done rows older than the dedup window are pruned.

import type { Logger } from "pino";
import { describeThrown } from "../../errors.js";
import type { Store } from "../store/store.js";
import { backoffMs, WorkLoop } from "../tickets/work-loop.js";
import {
  type Delivery,
  nextDeliveryDueAt,
  nextDueDelivery,
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
}

export class WebhookWorker {
  private readonly loop: WorkLoop;
  private lastPruneMs = 0;

  constructor(private readonly options: WebhookWorkerOptions) {
    this.loop = new WorkLoop({
      step: () => this.step(),
      dueAt: () => nextDeliveryDueAt(options.db),
      now: () => options.now().getTime(),
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
    const delivery = await nextDueDelivery(db, nowMs);
    if (!delivery) return false;
    const attempts = delivery.attempts + 1;
    const log = { source: delivery.source, delivery: delivery.deliveryId, event: delivery.event, attempts };
    try {
      const outcome = await this.options.apply(delivery);
      await commit(() => recordDeliveryEnd(db, delivery.seq, { state: "done", outcome, attempts }));
      logger.info({ ...log, outcome }, "webhook delivery applied");
    } catch (error) {
      const why = `attempt ${attempts} failed: ${describeThrown(error)}`;
      if (attempts >= MAX_ATTEMPTS) {
        await commit(() => recordDeliveryEnd(db, delivery.seq, { state: "failed", outcome: why, attempts }));
        logger.warn({ ...log, outcome: why }, "webhook delivery failed");
      } else {
        const nextAttemptAtMs = this.options.now().getTime() + backoffMs(attempts, this.options.retryBaseMs);
        await commit(() =>
          recordDeliveryRetry(db, delivery.seq, { outcome: why, attempts, nextAttemptAtMs }),
        );
        logger.info({ ...log, outcome: why }, "webhook delivery will be retried");
      }
    }
    return true;
  }
}
