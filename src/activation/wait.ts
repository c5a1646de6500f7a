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
  /** Stops waiting (Ctrl-C): the wait ends with StillWorkingError and the operation keeps going. */
  signal?: AbortSignal;
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
  const stillWorking = (why: string) =>
    new StillWorkingError(
      `${why}: operation ${current.id} is still ${current.state} and keeps going. Check it with \`baton op get ${current.id}\``,
      { details: { operationId: current.id, state: current.state } },
    );
  while (!TERMINAL_OPERATION_STATES.has(current.state)) {
    const remaining = options.deadline - now();
    if (remaining <= 0) throw stillWorking("stopped waiting after --timeout");
    if (options.signal?.aborted) throw stillWorking("stopped waiting");
    const asked = now();
    try {
      const next = await client.getOperation(current.id, {
        waitMs: Math.min(remaining, POLL_WAIT_MS),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      outageSince = undefined;
      const changed = next.state !== current.state;
      current = next;
      options.onUpdate(current);
      // A service that answers at once without long-polling must not be hammered.
      if (!changed && now() - asked < MIN_POLL_GAP_MS) await pause(MIN_POLL_GAP_MS, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw stillWorking("stopped waiting");
      if (!isTransient(error)) throw annotate(error, current.id);
      outageSince ??= now();
      if (now() - outageSince > outageBudget) throw annotate(error, current.id);
      await pause(MIN_POLL_GAP_MS, options.signal);
    }
  }
  return current;
}

/** Sleeps, cut short by the signal (the loop then sees it aborted). */
async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleep(ms, undefined, signal ? { signal } : undefined).catch(() => undefined);
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
