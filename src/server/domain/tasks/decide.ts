// The engine's decisions over plain data: where an accepted message goes, whether a start is refused, which
// queued turns start, what a finished turn leaves behind, and what a restart does with an interrupted turn.
// The store adapter (engine.ts) reads the few facts each decision needs and writes what it returns.
import type { PauseReason, TaskStatus, TurnState } from "./statuses.js";

export interface Plan {
  name: string;
  concurrency: number;
  queueSize: number;
}

export interface SlotCounts {
  running: number;
  queued: number;
}

export type MessagePlacement =
  | { kind: "join_queued_turn" } // the task's turn waits in the queue: the message joins it
  | { kind: "wait_for_turn" } // the task's turn runs: the message becomes the next turn
  | { kind: "open_turn"; queued: boolean } // a new turn takes a free slot, or a queue place
  | { kind: "refuse_queue_full" }; // no slot, no queue place: refused in the conversation

export function placeMessage(openTurn: TurnState | null, plan: Plan, slots: SlotCounts): MessagePlacement {
  if (openTurn === "queued") return { kind: "join_queued_turn" };
  if (openTurn === "running") return { kind: "wait_for_turn" };
  if (slots.running < plan.concurrency) return { kind: "open_turn", queued: false };
  if (slots.queued < plan.queueSize) return { kind: "open_turn", queued: true };
  return { kind: "refuse_queue_full" };
}

/** How many queued turns may start now, oldest first. */
export function turnsToStart(plan: Plan, slots: SlotCounts): number {
  return Math.max(0, Math.min(slots.queued, plan.concurrency - slots.running));
}

export type StartCheck =
  | { ok: true }
  | { ok: false; refusal: "too_many_running" | "codehost_not_connected" | "billing_inactive" | "queue_full" };

/**
 * The checks before a task is created (reference section 4, start rule 1, and section 8): the caller's open API
 * tasks, the code-host connection, billing, then room for the first turn. A source other than `api` (a delegated
 * issue) skips the per-user limit.
 */
export function checkStart(input: {
  countsAgainstUserLimit: boolean;
  openTasksOfUser: number;
  userLimit: number;
  codehostConnected: boolean;
  billingActive: boolean;
  plan: Plan;
  slots: SlotCounts;
}): StartCheck {
  if (input.countsAgainstUserLimit && input.openTasksOfUser >= input.userLimit)
    return { ok: false, refusal: "too_many_running" };
  if (!input.codehostConnected) return { ok: false, refusal: "codehost_not_connected" };
  if (!input.billingActive) return { ok: false, refusal: "billing_inactive" };
  if (placeMessage(null, input.plan, input.slots).kind === "refuse_queue_full")
    return { ok: false, refusal: "queue_full" };
  return { ok: true };
}

/** What the agent port hands back for a turn (see adapters/agents/port.ts), reduced to what the engine decides on. */
export type TurnOutcome =
  | { kind: "reply"; replyKind: "response" | "clarify"; pullRequestOpen: boolean }
  | { kind: "error"; code: string }
  | { kind: "needs_access" }
  | { kind: "billing_stopped" };

export interface TurnEnd {
  turnState: TurnState;
  event: "replied" | "replied_pull_request_open" | "turn_failed" | "paused";
  pausedOn: PauseReason | null;
}

export function endTurn(outcome: TurnOutcome): TurnEnd {
  switch (outcome.kind) {
    case "reply":
      return {
        turnState: "succeeded",
        event: outcome.pullRequestOpen ? "replied_pull_request_open" : "replied",
        pausedOn: null,
      };
    case "error":
      return { turnState: "failed", event: "turn_failed", pausedOn: null };
    case "needs_access":
      return { turnState: "paused", event: "paused", pausedOn: "access" };
    case "billing_stopped":
      return { turnState: "paused", event: "paused", pausedOn: "billing" };
  }
}

/** A turn found `running` when the service starts was interrupted by a crash: run it again, up to three tries. */
export const MAX_TURN_ATTEMPTS = 3;
export const recoverTurn = (attempts: number): "rerun" | "fail" =>
  attempts >= MAX_TURN_ATTEMPTS ? "fail" : "rerun";

/** Stop is accepted for a task whose turn is queued or running (reference section 3, fact 4). */
export const canStop = (openTurn: TurnState | null): boolean =>
  openTurn === "queued" || openTurn === "running";

export const countsAsOpen = (status: TaskStatus): boolean =>
  status === "pending" || status === "implementing";
