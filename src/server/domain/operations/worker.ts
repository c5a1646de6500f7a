// Runs operations: one drain loop per engagement (activations are serial there), driven by the durable rows, so
// any instance picks up exactly where the store says. A drain takes the engagement's oldest open operation under
// a lease (claim-operation.ts), renewed every lease/3 while it runs; a periodic sweep finds engagements whose
// open work no live lease covers (their instance died, or stopped, or never drained them) and drains them here.
// On SQLite only this process can be using the store, so at start every claim of an earlier process is expired.

import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "pino";
import { describeThrown } from "../../../errors.js";
import { expireOthersClaims, renewLeasesOf } from "../../store/claims.js";
import { engagementsToDrain, markFailed, type OperationRow } from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import { type LeaseSettings, renewEveryMs } from "../leases.js";
import { commitActivation } from "./activate.js";
import { claimHead, stillHolds } from "./claim-operation.js";

export { MAX_ATTEMPTS } from "./claim-operation.js";

export interface WorkerOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** The instance id its claims are recorded under. */
  owner: string;
  lease: LeaseSettings;
  /** Test-only pause between `running` and the commit (BATON_SERVE_TEST_ACTIVATION_DELAY_MS). */
  activationDelayMs?: number;
}

export class OperationWorker {
  private readonly drains = new Map<string, Promise<void>>();
  private stopping = false;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(private readonly options: WorkerOptions) {}

  /** Takes over what a dead predecessor left (SQLite) and starts draining; then renews and sweeps every lease/3. */
  async recover(): Promise<void> {
    const { db, owner, logger } = this.options;
    if (db.engine === "sqlite") {
      const expired = await db.transaction(async () => expireOthersClaims(db, "operations", owner));
      if (expired > 0)
        logger.info({ count: expired }, "taking over operations an earlier process left running");
    }
    await this.sweep();
    if (this.stopping) return;
    this.timer = setInterval(() => {
      this.ticking ??= this.tick().finally(() => {
        this.ticking = undefined;
      });
    }, renewEveryMs(this.options.lease));
    this.timer.unref();
  }

  /**
   * Whether a new operation of the engagement may run at once, in the request that starts it: no drain is
   * working through the engagement here and the service is not stopping (the caller also checks, under the
   * engagement's lock, that no open row is ahead, which covers other instances' drains). Never with the test-only
   * activation delay, so tests can still catch an operation `running`.
   */
  isIdle(engagementId: string): boolean {
    return !this.stopping && !this.options.activationDelayMs && !this.drains.has(engagementId);
  }

  /** Makes sure the engagement's open operations are being worked through (here, or by the instance holding them). */
  kick(engagementId: string): void {
    if (this.stopping || this.drains.has(engagementId)) return;
    const drain: Promise<void> = this.drain(engagementId)
      .catch((error: unknown) => {
        // Only reachable when the store itself fails; the operations stay open and the sweep comes back to them.
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

  /** Finishes the operation in hand for each engagement, then stops; the rest stay `pending` for any instance. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.all([...this.drains.values(), this.ticking]);
  }

  /** One period: renew this instance's leases, then drain engagements no live lease covers. */
  private async tick(): Promise<void> {
    const { db, owner, lease, now, logger } = this.options;
    try {
      await renewLeasesOf(db, { table: "operations", owner, leaseMs: lease.leaseMs, now: now().getTime() });
      await this.sweep();
    } catch (error) {
      logger.error({ err: describeThrown(error) }, "operation leases could not be renewed or swept");
    }
  }

  private async sweep(): Promise<void> {
    for (const engagementId of await engagementsToDrain(this.options.db, this.options.now().getTime()))
      this.kick(engagementId);
  }

  private async drain(engagementId: string): Promise<void> {
    // Let the request that kicked us respond first.
    await Promise.resolve();
    const { db, owner, lease, now, logger } = this.options;
    while (!this.stopping) {
      // Leave the map in the transaction that found nothing to take, holding the engagement's lock: a request
      // that starts an operation takes the same lock (startOperation), so it either ran before (its row is found
      // here) or runs after and sees the engagement idle.
      const head = await claimHead(db, engagementId, {
        owner,
        leaseMs: lease.leaseMs,
        now,
        onIdle: () => this.drains.delete(engagementId),
      });
      if (head.kind === "idle" || head.kind === "busy") return;
      if (head.kind === "ended") continue;
      if (head.takenOverFrom !== null)
        logger.warn(
          { operationId: head.op.id, from: head.takenOverFrom, attempt: head.op.attempts },
          "took over an operation whose instance stopped renewing its lease",
        );
      try {
        await this.runOne(head.op);
      } catch (error) {
        logger.error({ operationId: head.op.id, err: describeThrown(error) }, "operation step failed");
        await db.transaction(async () => {
          if (await stillHolds(db, head.op, owner))
            await markFailed(
              db,
              head.op.id,
              "internal",
              "the service failed while running this operation; start it again",
              now(),
            );
        });
      }
    }
  }

  private async runOne(op: OperationRow): Promise<void> {
    const { db, now, logger, owner } = this.options;
    logger.debug({ operationId: op.id, state: "running" }, "operation picked up");
    if (this.options.activationDelayMs) await sleep(this.options.activationDelayMs);
    // The outcome commits only while this instance still holds the claim: one that lost it (its lease ran out and
    // another instance took the operation over) leaves the result to that instance.
    const outcome = await db.transaction(async () => {
      const held = await stillHolds(db, op, owner);
      return held ? await commitActivation(db, held, now()) : undefined;
    });
    if (!outcome) {
      logger.warn({ operationId: op.id }, "operation lost to another instance after its lease ran out");
      return;
    }
    const failure = "failure" in outcome ? outcome.failure : undefined;
    logger.info(
      { operationId: op.id, state: failure ? "failed" : "succeeded", code: failure?.code },
      "operation finished",
    );
  }
}
