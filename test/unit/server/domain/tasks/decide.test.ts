// The engine's decisions and the status table (README "Task statuses"), as plain data.
import { describe, expect, it } from "vitest";
import {
  canStop,
  checkStart,
  endTurn,
  placeMessage,
  recoverTurn,
  turnsToStart,
} from "../../../../../src/server/domain/tasks/decide.js";
import {
  IDLE_STATUSES,
  nextStatus,
  STATUS_TRANSITIONS,
  TASK_STATUSES,
} from "../../../../../src/server/domain/tasks/statuses.js";

const plan = { name: "standard", concurrency: 2, queueSize: 1 };

describe("where an accepted message goes", () => {
  it.each([
    [
      "a message sent while the agent is working waits and runs as the next turn",
      "running",
      2,
      1,
      "wait_for_turn",
    ],
    ["a message to a task whose turn is queued joins that turn", "queued", 2, 1, "join_queued_turn"],
    ["a running turn takes one of the plan's task slots", null, 1, 0, "open_turn"],
    ["beyond that it is queued", null, 2, 0, "open_turn"],
    [
      "if the queue is full the service says so in the conversation instead of starting it",
      null,
      2,
      1,
      "refuse_queue_full",
    ],
  ] as const)("%s", (_rule, open, running, queued, kind) => {
    expect(placeMessage(open, plan, { running, queued }).kind).toBe(kind);
  });

  it("a turn opened beyond the plan's slots is queued", () => {
    expect(placeMessage(null, plan, { running: 2, queued: 0 })).toEqual({ kind: "open_turn", queued: true });
    expect(placeMessage(null, plan, { running: 1, queued: 0 })).toEqual({ kind: "open_turn", queued: false });
  });
});

describe("start checks", () => {
  const base = {
    countsAgainstUserLimit: true,
    openTasksOfUser: 0,
    userLimit: 5,
    codehostConnected: true,
    billingActive: true,
    plan,
    slots: { running: 0, queued: 0 },
  };
  it.each([
    ["5 tasks starting, running or queued -> too_many_running", { openTasksOfUser: 5 }, "too_many_running"],
    ["not connected to the code host", { codehostConnected: false }, "codehost_not_connected"],
    ["billing does not allow the task", { billingActive: false }, "billing_inactive"],
    ["the queue has no room", { slots: { running: 2, queued: 1 } }, "queue_full"],
  ] as const)("%s", (_rule, change, refusal) => {
    expect(checkStart({ ...base, ...change })).toEqual({ ok: false, refusal });
  });
  it("tasks started from issue trackers do not count against the 5", () => {
    expect(checkStart({ ...base, openTasksOfUser: 9, countsAgainstUserLimit: false })).toEqual({ ok: true });
  });
  it("4 open tasks, a free slot: accepted", () => {
    expect(checkStart({ ...base, openTasksOfUser: 4 })).toEqual({ ok: true });
  });
});

describe("turn ends, promotion, recovery, stop", () => {
  it.each([
    [{ kind: "reply", replyKind: "response", pullRequestOpen: false }, "succeeded", "replied", null],
    [{ kind: "reply", replyKind: "clarify", pullRequestOpen: false }, "succeeded", "replied", null],
    [
      { kind: "reply", replyKind: "response", pullRequestOpen: true },
      "succeeded",
      "replied_pull_request_open",
      null,
    ],
    [{ kind: "error", code: "agent_failed" }, "failed", "turn_failed", null],
    [{ kind: "needs_access" }, "paused", "paused", "access"],
    [{ kind: "billing_stopped" }, "paused", "paused", "billing"],
  ] as const)("%o ends the turn %s", (outcome, turnState, event, pausedOn) => {
    expect(endTurn(outcome)).toEqual({ turnState, event, pausedOn });
  });
  it("starts queued turns while slots are free, oldest first", () => {
    expect(turnsToStart(plan, { running: 0, queued: 5 })).toBe(2);
    expect(turnsToStart(plan, { running: 2, queued: 5 })).toBe(0);
    expect(turnsToStart(plan, { running: 1, queued: 0 })).toBe(0);
  });
  it("a turn interrupted by a crash is retried, and failed after three tries", () => {
    expect([0, 1, 2, 3, 4].map(recoverTurn)).toEqual(["rerun", "rerun", "rerun", "fail", "fail"]);
  });
  it("a stop is accepted only for a task with a running (or queued) turn", () => {
    expect([null, "queued", "running", "succeeded", "cancelled"].map((s) => canStop(s as never))).toEqual([
      false,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("status table", () => {
  it("every status is reachable from a new task, and every idle status resumes on a follow-up", () => {
    const reached = new Set<string>(["pending"]);
    for (let changed = true; changed; ) {
      changed = false;
      for (const row of STATUS_TRANSITIONS) {
        if (row.from !== "new" && row.from.some((s) => reached.has(s)) && !reached.has(row.to)) {
          reached.add(row.to);
          changed = true;
        }
      }
    }
    expect([...reached].sort()).toEqual([...TASK_STATUSES].sort());
    for (const idle of IDLE_STATUSES) expect(nextStatus(idle, "turn_opened")).toBe("pending");
  });
  it("a transition the table does not have throws", () => {
    expect(() => nextStatus("replied", "replied")).toThrow(
      /no task status transition from replied on replied/,
    );
    expect(() => nextStatus("completed", "stopped")).toThrow();
  });
});
