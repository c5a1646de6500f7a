// Waits for an operation to finish by long-polling. Rides out a short outage of the service (a restart) up to a
// bound; any refusal (401, 404, 403) ends the wait at once.
import { setTimeout as sleep } from "node:timers/promises";
import { type BatonError, isBatonError, StillWorkingError } from "../errors.js";
import type { OpsClient } from "../transport/index.js";
import { MAX_WAIT_MS, type Operation, TERMINAL_OPERATION_STATES } from "../transport/wire.js";

export interface WaitOptions {
  /** Wall-clock deadline in ms since the epoch (from --timeout). */
  deadline: number;
  /** Called after each answer. */
  onUpdate: (operation: Operation) => void;
  /** How long the service may stay unreachable before the wait gives up. */
  outageBudgetMs?: number;
  now?: () => number;
}

const MIN_POLL_GAP_MS = 1_000;
/**
 * Each long-poll asks for the service's longest wait: fewer requests, and a lease or turn that expires while the
 * operation runs does not cut the wait short before the service reports the operation's terminal failure.
 * Progress heartbeats come between polls.
 */
const POLL_WAIT_MS = MAX_WAIT_MS;

export async function waitForOperation(
  client: OpsClient,
  start: Operation,
  options: WaitOptions,
): Promise<Operation> {
  const now = options.now ?? Date.now;
  const outageBudget = options.outageBudgetMs ?? 30_000;
  let current = start;
  let outageSince: number | undefined;
  while (!TERMINAL_OPERATION_STATES.has(current.state)) {
    const remaining = options.deadline - now();
    if (remaining <= 0) {
      throw new StillWorkingError(
        `operation ${current.id} is still ${current.state}; it keeps going. Check it with \`baton op get ${current.id}\``,
        { details: { operationId: current.id, state: current.state } },
      );
    }
    const asked = now();
    try {
      const next = await client.getOperation(current.id, { waitMs: Math.min(remaining, POLL_WAIT_MS) });
      outageSince = undefined;
      const changed = next.state !== current.state;
      current = next;
      options.onUpdate(current);
      // A service that answers at once without long-polling must not be hammered.
      if (!changed && now() - asked < MIN_POLL_GAP_MS) await sleep(MIN_POLL_GAP_MS);
    } catch (error) {
      if (!isTransient(error)) throw annotate(error, current.id);
      outageSince ??= now();
      if (now() - outageSince > outageBudget) throw annotate(error, current.id);
      await sleep(MIN_POLL_GAP_MS);
    }
  }
  return current;
}

function isTransient(error: unknown): boolean {
  return isBatonError(error) && (error.code === "network" || error.code === "service_error");
}

function annotate(error: unknown, id: string): unknown {
  if (!isBatonError(error)) return error;
  const e = error as BatonError & { message: string };
  // The operation may well go on; tell the agent how to look at it again.
  e.message = `${e.message} (operation ${id} was started; check it with \`baton op get ${id}\`)`;
  return e;
}
