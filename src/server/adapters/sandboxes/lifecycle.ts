// The sandbox lifecycle of reference section 3 as pure decisions over plain data: which transition (if any) a
// sandbox takes on an event or at a sweep, given the time. The manager applies them; nothing here reads a clock.

export const SANDBOX_STATES = ["running", "stopped", "archived", "eligible_for_deletion", "deleted"] as const;
export type SandboxState = (typeof SANDBOX_STATES)[number];

/** Reference section 8 "Sandbox" limits. */
export const LIFECYCLE_LIMITS = {
  idleStopMs: 2 * 60 * 60 * 1000,
  archiveAfterStopMs: 60 * 60 * 1000,
  deletionAfterInactiveMs: 30 * 24 * 60 * 60 * 1000,
} as const;

export const TRANSITION_REASONS = [
  "work_finished", // running → stopped
  "idle", // running → stopped after 2 hours without activity
  "stop_elapsed", // stopped → archived one hour after the stop
  "cancelled", // running|stopped → archived at once (terminal cancellation)
  "inactive", // archived → eligible_for_deletion after 30 days without activity (daily sweep)
  "cleanup", // eligible_for_deletion → deleted (daily sweep removes the box)
  "deleted", // any → deleted (admin request, ownership checked)
  "lost", // any → deleted: the driver no longer has the box (a follow-up then gets a new one)
  "activity", // stopped|archived → running (an operation, command or lease use; a follow-up)
] as const;
export type TransitionReason = (typeof TRANSITION_REASONS)[number];

export interface LifecycleFacts {
  state: SandboxState;
  /** Epoch ms of the last operation, command or lease use (creation counts). */
  lastActivityAtMs: number;
  /** Epoch ms the current state began. */
  stateChangedAtMs: number;
}

export interface Transition {
  from: SandboxState;
  to: SandboxState;
  reason: TransitionReason;
}

export type LifecycleEvent = "activity" | "work_finished" | "cancelled" | "deleted" | "lost";

/** The transition an event causes, or null when it changes nothing (e.g. activity on a running box). */
export function decideOnEvent(facts: LifecycleFacts, event: LifecycleEvent): Transition | null {
  const from = facts.state;
  if (from === "deleted") return null;
  switch (event) {
    case "activity":
      return from === "stopped" || from === "archived" ? { from, to: "running", reason: "activity" } : null;
    case "work_finished":
      return from === "running" ? { from, to: "stopped", reason: "work_finished" } : null;
    case "cancelled":
      return from === "running" || from === "stopped" ? { from, to: "archived", reason: "cancelled" } : null;
    case "deleted":
      return { from, to: "deleted", reason: "deleted" };
    case "lost":
      return { from, to: "deleted", reason: "lost" };
  }
}

/** The frequent sweep (stop idle boxes, archive stopped ones): at most one transition per call. */
export function decideOnSweep(facts: LifecycleFacts, nowMs: number): Transition | null {
  const { state } = facts;
  if (state === "running" && nowMs - facts.lastActivityAtMs >= LIFECYCLE_LIMITS.idleStopMs)
    return { from: state, to: "stopped", reason: "idle" };
  if (state === "stopped" && nowMs - facts.stateChangedAtMs >= LIFECYCLE_LIMITS.archiveAfterStopMs)
    return { from: state, to: "archived", reason: "stop_elapsed" };
  return null;
}

/** The daily cleanup sweep: archived boxes inactive for 30 days become eligible; eligible ones are deleted. */
export function decideOnCleanup(facts: LifecycleFacts, nowMs: number): Transition | null {
  const { state } = facts;
  if (state === "archived" && nowMs - facts.lastActivityAtMs >= LIFECYCLE_LIMITS.deletionAfterInactiveMs)
    return { from: state, to: "eligible_for_deletion", reason: "inactive" };
  if (state === "eligible_for_deletion") return { from: state, to: "deleted", reason: "cleanup" };
  return null;
}

/** States in which the box exists and can be reused for a follow-up (started again if needed). */
export function isReusable(state: SandboxState): boolean {
  return state === "running" || state === "stopped" || state === "archived";
}
