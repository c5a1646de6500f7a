import { describe, expect, it } from "vitest";
import {
  decideOnCleanup,
  decideOnEvent,
  decideOnSweep,
  LIFECYCLE_LIMITS,
  type LifecycleFacts,
  type SandboxState,
} from "../../../../../src/server/adapters/sandboxes/lifecycle.js";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const facts = (
  state: SandboxState,
  sinceActivityMs: number,
  sinceStateMs: number,
  now = T0,
): LifecycleFacts => ({
  state,
  lastActivityAtMs: now - sinceActivityMs,
  stateChangedAtMs: now - sinceStateMs,
});
const { idleStopMs, archiveAfterStopMs, deletionAfterInactiveMs } = LIFECYCLE_LIMITS;

describe("sandbox lifecycle (reference section 3, limits of section 8)", () => {
  it("uses the reference's limits: stop after 2 hours idle, archive 1 hour after stop, deletable after 30 days", () => {
    expect(LIFECYCLE_LIMITS).toEqual({
      idleStopMs: 2 * 3600_000,
      archiveAfterStopMs: 3600_000,
      deletionAfterInactiveMs: 30 * 24 * 3600_000,
    });
  });

  it.each([
    ["running, idle just under 2 h", facts("running", idleStopMs - 1, idleStopMs - 1), null],
    [
      "running, idle 2 h",
      facts("running", idleStopMs, idleStopMs),
      { from: "running", to: "stopped", reason: "idle" },
    ],
    ["stopped just under 1 h", facts("stopped", idleStopMs * 5, archiveAfterStopMs - 1), null],
    [
      "stopped 1 h",
      facts("stopped", idleStopMs * 5, archiveAfterStopMs),
      { from: "stopped", to: "archived", reason: "stop_elapsed" },
    ],
    ["archived (the frequent sweep never deletes)", facts("archived", deletionAfterInactiveMs * 2, 0), null],
  ])("sweep: %s", (_what, given, expected) => {
    expect(decideOnSweep(given, T0)).toEqual(expected);
  });

  it.each([
    ["archived, inactive just under 30 days", facts("archived", deletionAfterInactiveMs - 1, 0), null],
    [
      "archived, inactive 30 days",
      facts("archived", deletionAfterInactiveMs, 0),
      { from: "archived", to: "eligible_for_deletion", reason: "inactive" },
    ],
    [
      "eligible for deletion",
      facts("eligible_for_deletion", 0, 0),
      { from: "eligible_for_deletion", to: "deleted", reason: "cleanup" },
    ],
    ["running for 40 days with activity", facts("running", 0, deletionAfterInactiveMs * 2), null],
    ["stopped, inactive 40 days (archived first)", facts("stopped", deletionAfterInactiveMs * 2, 0), null],
  ])("daily cleanup: %s", (_what, given, expected) => {
    expect(decideOnCleanup(given, T0)).toEqual(expected);
  });

  it.each([
    ["running", "work_finished", { from: "running", to: "stopped", reason: "work_finished" }],
    ["stopped", "work_finished", null],
    ["running", "cancelled", { from: "running", to: "archived", reason: "cancelled" }],
    ["stopped", "cancelled", { from: "stopped", to: "archived", reason: "cancelled" }],
    ["archived", "cancelled", null],
    ["running", "activity", null],
    ["stopped", "activity", { from: "stopped", to: "running", reason: "activity" }],
    ["archived", "activity", { from: "archived", to: "running", reason: "activity" }],
    ["eligible_for_deletion", "activity", null],
    ["archived", "deleted", { from: "archived", to: "deleted", reason: "deleted" }],
    ["deleted", "deleted", null],
    ["running", "lost", { from: "running", to: "deleted", reason: "lost" }],
    ["stopped", "lost", { from: "stopped", to: "deleted", reason: "lost" }],
    ["deleted", "lost", null],
  ] as const)("event: %s + %s", (state, event, expected) => {
    expect(decideOnEvent(facts(state, 0, 0), event)).toEqual(expected);
  });
});
