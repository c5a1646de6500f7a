// Reference section 4 rules 5 and 6, the deciding half of following a task: given what the last poll saw, which
// entries to print, whether to say the turn is queued, and whether the turn is done (or a reply was not picked
// up). Pure: follow.ts polls, sleeps and keeps time.
import { IDLE_STATUSES } from "../server/surfaces/api/wire.js";

/** What following needs of a task (a subset of the API's Task object). */
export interface FollowedTask {
  id: string;
  status: string;
  queued: boolean;
}

/** What following needs of a conversation entry. */
export interface FollowedEntry {
  id: string;
  messageId: string | null;
  role: string;
  kind: string;
  body: string;
}

/** Statuses in which no turn is open: the turn is done (the service's own list, bundled as plain data). */
const TURN_DONE_STATUSES: ReadonlySet<string> = new Set(IDLE_STATUSES);
/** Done statuses that count as the task failing (exit 2): DESIGN "Billing and pauses" adds `paused`. */
const FAILED_STATUSES: ReadonlySet<string> = new Set(["failed", "cancelled", "paused"]);

export const isTurnDone = (status: string) => TURN_DONE_STATUSES.has(status);
export const isFailedOutcome = (status: string) => FAILED_STATUSES.has(status);

export interface FollowState {
  /** A reply waits to be picked up: until then an idle status is the previous turn's, not this one's. */
  awaitingPickup: boolean;
  /** The `after` cursor: the last entry read. */
  cursor: string | null;
  printed: ReadonlySet<string>;
  /** Said the turn is queued (said once per queued spell). */
  queuedSaid: boolean;
}

export type FollowEvent =
  | { type: "entry"; entry: FollowedEntry }
  | { type: "queued" }
  | { type: "picked_up" }
  /** A poll failed on the network or a 5xx: following goes on until the time limit (said once per outage). */
  | { type: "connection_lost"; reason: string }
  | { type: "connection_back" };

export type StepOutcome =
  | { kind: "turn_done"; status: string }
  | { kind: "not_picked_up"; status: string }
  | undefined;

export interface Observation {
  task: FollowedTask;
  /** Entries after the cursor, oldest first. */
  entries: readonly FollowedEntry[];
  /** Milliseconds since the message (the start's prompt or the reply) was sent. */
  sinceSentMs: number;
}

export interface StepOptions {
  /** messageIds of the user's own message(s) this run sent: not printed back. */
  ownMessageIds: ReadonlySet<string>;
  /** Rule 6: how long a reply may wait to be picked up (2 minutes). */
  pickupLimitMs: number;
}

export function initialFollowState(cursor: string | null, awaitingPickup: boolean): FollowState {
  return { awaitingPickup, cursor, printed: new Set(), queuedSaid: false };
}

/** One poll's worth: the events to print, the next state, and an outcome when following ends. */
export function stepFollow(
  state: FollowState,
  seen: Observation,
  options: StepOptions,
): { state: FollowState; events: FollowEvent[]; outcome: StepOutcome } {
  const events: FollowEvent[] = [];
  const printed = new Set(state.printed);
  let cursor = state.cursor;
  let answered = false;
  for (const entry of seen.entries) {
    cursor = entry.id;
    if (printed.has(entry.id)) continue;
    printed.add(entry.id);
    if (entry.role !== "user") answered = true;
    if (entry.role === "user" && entry.messageId !== null && options.ownMessageIds.has(entry.messageId))
      continue;
    events.push({ type: "entry", entry });
  }
  const { task } = seen;
  let awaitingPickup = state.awaitingPickup;
  if (awaitingPickup && (answered || !isTurnDone(task.status))) {
    awaitingPickup = false;
    events.unshift({ type: "picked_up" });
  }
  let queuedSaid = state.queuedSaid;
  if (task.queued && !queuedSaid) {
    events.push({ type: "queued" });
    queuedSaid = true;
  } else if (!task.queued) queuedSaid = false;
  const next: FollowState = { awaitingPickup, cursor, printed, queuedSaid };
  if (awaitingPickup) {
    // Rule 6: the previous turn's result is never reported; after the limit, say the reply waits.
    const outcome: StepOutcome =
      seen.sinceSentMs >= options.pickupLimitMs ? { kind: "not_picked_up", status: task.status } : undefined;
    return { state: next, events, outcome };
  }
  return {
    state: next,
    events,
    outcome: isTurnDone(task.status) ? { kind: "turn_done", status: task.status } : undefined,
  };
}
