// Reference section 4 rules 5 and 6: follow a task by polling its state and conversation every 3 s until the turn
// is done, the time limit passes, a reply is not picked up in 2 minutes, or the caller stops waiting (Ctrl-C).
// The I/O is injected (fetches, clock, sleep, output), so tests drive it in-process with a fake clock.
import { isBatonError } from "../errors.js";
import {
  type FollowEvent,
  type FollowedEntry,
  type FollowedTask,
  initialFollowState,
  stepFollow,
} from "./follow-step.js";

export const POLL_INTERVAL_MS = 3_000;
/** Test-only: a shorter poll interval (milliseconds, at least 50); documented in docs/client.md. */
export const POLL_INTERVAL_ENV = "BATON_CLIENT_POLL_MS";
/** Test-only: a shorter reply pickup limit (milliseconds, at least 50) than the reference's 2 minutes. */
export const PICKUP_LIMIT_ENV = "BATON_CLIENT_PICKUP_MS";
export const PICKUP_LIMIT_MS = 2 * 60_000;
const TEST_MINIMUM_MS = 50;

export type FollowOutcome =
  | { kind: "turn_done"; status: string }
  | { kind: "not_picked_up"; status: string }
  | { kind: "timed_out"; status: string | undefined }
  | { kind: "interrupted"; status: string | undefined };

export interface FollowDeps {
  fetchTask(signal: AbortSignal): Promise<FollowedTask>;
  /** One page of entries after `after` (oldest first) and the cursor of the next page, if any. */
  fetchEntries(
    after: string | null,
    signal: AbortSignal,
  ): Promise<{ entries: FollowedEntry[]; next: string | null }>;
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  emit(event: FollowEvent): void;
}

export interface FollowOptions {
  /** The last entry before this run's message; null to read the whole conversation. */
  cursor: string | null;
  /** A reply to a task: its idle status is the previous turn's until the reply is picked up (rule 6). */
  awaitingPickup: boolean;
  ownMessageIds: ReadonlySet<string>;
  /** When the message was sent (deps.now() time). */
  sentAt: number;
  timeoutMs: number;
  pollMs: number;
  pickupLimitMs: number;
  /** Aborted by Ctrl-C: following stops, the task keeps going. */
  signal: AbortSignal;
}

export async function followTask(deps: FollowDeps, options: FollowOptions): Promise<FollowOutcome> {
  let state = initialFollowState(options.cursor, options.awaitingPickup);
  const deadline = options.sentAt + options.timeoutMs;
  let status: string | undefined;
  const { signal } = options;
  let outage = false;
  try {
    for (;;) {
      const seen = await readOnce(deps, state.cursor, signal).catch((error: unknown) => {
        // A person following for half an hour must not lose the task to a blip: a dropped connection or a 5xx
        // (each already retried by the HTTP client) is said once, and the next poll tries again until the time
        // limit. Anything else (a revoked token, a task gone) ends following as before.
        if (signal.aborted || !isTransient(error)) throw error;
        if (!outage) deps.emit({ type: "connection_lost", reason: (error as Error).message });
        outage = true;
        return undefined;
      });
      if (seen) {
        if (outage) deps.emit({ type: "connection_back" });
        outage = false;
        status = seen.task.status;
        const step = stepFollow(
          state,
          { task: seen.task, entries: seen.entries, sinceSentMs: deps.now() - options.sentAt },
          { ownMessageIds: options.ownMessageIds, pickupLimitMs: options.pickupLimitMs },
        );
        state = step.state;
        for (const event of step.events) deps.emit(event);
        if (step.outcome) return step.outcome;
      }
      const left = deadline - deps.now();
      if (left <= 0) return { kind: "timed_out", status };
      await deps.sleep(Math.min(options.pollMs, left), signal);
      if (signal.aborted) return { kind: "interrupted", status };
    }
  } catch (error) {
    if (signal.aborted) return { kind: "interrupted", status };
    throw error;
  }
}

/** The task and every entry after `cursor`, all pages. */
async function readOnce(
  deps: FollowDeps,
  cursor: string | null,
  signal: AbortSignal,
): Promise<{ task: FollowedTask; entries: FollowedEntry[] }> {
  const task = await deps.fetchTask(signal);
  const entries: FollowedEntry[] = [];
  for (let after = cursor; ; ) {
    const page = await deps.fetchEntries(after, signal);
    entries.push(...page.entries);
    if (page.next === null || page.entries.length === 0) break;
    after = page.next;
  }
  return { task, entries };
}

const TRANSIENT_CODES = new Set(["network", "service_error"]);

function isTransient(error: unknown): boolean {
  return isBatonError(error) && TRANSIENT_CODES.has(error.code);
}

/** The poll interval: 3 s, or the test-only variable when set to a whole number of at least 50 ms. */
export function pollIntervalFrom(env: NodeJS.ProcessEnv): number {
  return testOverride(env[POLL_INTERVAL_ENV]) ?? POLL_INTERVAL_MS;
}

/** The reply pickup limit: 2 minutes, or the test-only variable when set. */
export function pickupLimitFrom(env: NodeJS.ProcessEnv): number {
  return testOverride(env[PICKUP_LIMIT_ENV]) ?? PICKUP_LIMIT_MS;
}

function testOverride(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d+$/.test(raw)) return undefined;
  return Math.max(TEST_MINIMUM_MS, Number(raw));
}
