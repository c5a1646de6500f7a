// Runs operations: one drain loop per engagement (activations are serial there), driven by the durable rows,
// so a restart picks up exactly where the database says. On start, operations a killed service left `running`
// go back to `pending` (their transaction never committed) unless they have been interrupted MAX_ATTEMPTS
// times, in which case they fail terminally: no operation stays `running` forever.

import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { describeThrown } from "../../errors.js";
import { OPERATION_ERRORS } from "../../transport/wire.js";
import {
  engagementOperationsLock,
  engagementsWithOpenOperations,
  getOperation,
  markFailed,
  markRunning,
  nextOpenOperation,
  notifyOperationChanged,
  type OperationRow,
} from "../store/operations.js";
import type { Store } from "../store/store.js";
import { checkStillAllowed, commitActivation } from "./activate.js";

export const MAX_ATTEMPTS = 3;

export interface WorkerOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** Test-only pause between `running` and the commit (BATON_SERVE_TEST_ACTIVATION_DELAY_MS). */
  activationDelayMs?: number;
}

export class OperationWorker {
  private readonly drains = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(private readonly options: WorkerOptions) {}

  /** Resets interrupted operations and starts draining every engagement with open work. */
  async recover(): Promise<void> {
    const { db, now, logger } = this.options;
    const at = now();
    await db.transaction(async () => {
      const stuck = (await db.all("SELECT id, attempts FROM operations WHERE state = 'running'")) as {
        id: string;
        attempts: number;
      }[];
      for (const op of stuck) {
        if (op.attempts >= MAX_ATTEMPTS) {
          await markFailed(
            db,
            op.id,
            OPERATION_ERRORS.interrupted,
            `the service stopped during this operation ${op.attempts} times; start it again`,
            at,
          );
        } else {
          await db.run("UPDATE operations SET state = 'pending', updated_at = ? WHERE id = ?", [
            at.toISOString(),
            op.id,
          ]);
          notifyOperationChanged(db, op.id);
        }
      }
      if (stuck.length > 0) logger.info({ count: stuck.length }, "recovered interrupted operations");
    });
    for (const engagementId of await engagementsWithOpenOperations(db)) this.kick(engagementId);
  }

  /**
   * Whether a new operation of the engagement may run at once, in the request that starts it: no drain is
   * working through the engagement and the service is not stopping (the caller also checks that no open row is
   * ahead). Never with the test-only activation delay, so tests can still catch an operation `running`.
   */
  isIdle(engagementId: string): boolean {
    return !this.stopping && !this.options.activationDelayMs && !this.drains.has(engagementId);
  }

  /** Makes sure the engagement's open operations are being worked through. */
  kick(engagementId: string): void {
    if (this.stopping || this.drains.has(engagementId)) return;
    const drain: Promise<void> = this.drain(engagementId)
      .catch((error: unknown) => {
        // Only reachable when the store itself fails; the operations stay open and resume on the next start.
        const described = describeThrown(error);
        this.options.logger.error(
          { engagementId, err: described },
          "operation worker stopped for this engagement",
        );
      })
      .finally(() => {
        if (this.drains.get(engagementId) === drain) this.drains.delete(engagementId);
      });
    this.drains.set(engagementId, drain);
  }

  /** Finishes the operation in hand for each engagement, then stops; the rest stay `pending` for the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.drains.values()]);
  }

  private async drain(engagementId: string): Promise<void> {
    // Let the request that kicked us respond first.
    await Promise.resolve();
    const { db } = this.options;
    while (!this.stopping) {
      // Leave the map in the transaction that found the queue empty, holding the engagement's lock: a request
      // that starts an operation takes the same lock (startOperation), so it either ran before (its row is found
      // here) or runs after and sees the engagement idle. With the synchronous store this was one synchronous
      // step; now that the read awaits, the lock (and SQLite's one-at-a-time transactions) keeps that order.
      const op = await db.transaction(async (tx) => {
        await tx.lock(engagementOperationsLock(engagementId));
        const next = await nextOpenOperation(db, engagementId);
        if (!next) this.drains.delete(engagementId);
        return next;
      });
      if (!op) return;
      try {
        await this.runOne(op);
      } catch (error) {
        const described = describeThrown(error);
        this.options.logger.error({ operationId: op.id, err: described }, "operation step failed");
        await this.options.db.transaction(async () =>
          markFailed(
            this.options.db,
            op.id,
            "internal",
            "the service failed while running this operation; start it again",
            this.options.now(),
          ),
        );
      }
    }
  }

  private async runOne(op: OperationRow): Promise<void> {
    const { db, now, logger } = this.options;
    // Two commits (shared with other requests' in a group commit): `running` with its attempt count is durable
    // before the activation runs, so an operation that kills the service fails after MAX_ATTEMPTS restarts.
    const refused = await db.transaction(async () => {
      const refusal = await checkStillAllowed(db, op, now().getTime());
      if (refusal) await markFailed(db, op.id, refusal.code, refusal.reason, now());
      else await markRunning(db, op.id, now());
      return refusal;
    });
    logger.debug({ operationId: op.id, state: refused ? "failed" : "running" }, "operation picked up");
    if (refused) return;
    if (this.options.activationDelayMs) await sleep(this.options.activationDelayMs);
    const outcome = await db.transaction(
      async () => await commitActivation(db, (await getOperation(db, op.id))!, now()),
    );
    const failure = "failure" in outcome ? outcome.failure : undefined;
    logger.info(
      { operationId: op.id, state: failure ? "failed" : "succeeded", code: failure?.code },
      "operation finished",
    );
  }
}
