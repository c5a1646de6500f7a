// Reference section 4 rules 5 and 6, in process: followTask over a scripted sequence of polls with a fake clock
// (faked because the rules are about minutes: 30-minute timeouts and the 2-minute pickup limit).
import { describe, expect, it } from "vitest";
import {
  type FollowOutcome,
  followTask,
  pickupLimitFrom,
  pollIntervalFrom,
} from "../../../src/client/follow.js";
import type { FollowEvent, FollowedEntry } from "../../../src/client/follow-step.js";
import { ServiceError } from "../../../src/errors.js";

interface Poll {
  /** The poll fails with this error instead of answering (a dropped connection, a 5xx, a revoked token). */
  fails?: Error;
  status: string;
  queued?: boolean;
  entries?: FollowedEntry[];
}

const agent = (id: string, body: string, kind = "response"): FollowedEntry => ({
  id,
  messageId: null,
  role: "agent",
  kind,
  body,
});
const user = (id: string, messageId: string, body: string): FollowedEntry => ({
  id,
  messageId,
  role: "user",
  kind: "message",
  body,
});

async function follow(
  polls: Poll[],
  options: { awaitingPickup?: boolean; timeoutMs?: number; abortAfterPolls?: number } = {},
) {
  let clock = 0;
  let index = 0;
  const events: FollowEvent[] = [];
  const afters: (string | null)[] = [];
  const controller = new AbortController();
  const current = () => polls[Math.min(index, polls.length - 1)]!;
  const outcome: FollowOutcome = await followTask(
    {
      fetchTask: async () => {
        const poll = current();
        if (poll.fails) throw poll.fails;
        return { id: "task_1", status: poll.status, queued: poll.queued ?? false };
      },
      fetchEntries: async (after) => {
        afters.push(after);
        return { entries: current().entries ?? [], next: null };
      },
      now: () => clock,
      sleep: async (ms) => {
        clock += ms;
        index++;
        if (options.abortAfterPolls !== undefined && index >= options.abortAfterPolls) controller.abort();
      },
      emit: (event) => events.push(event),
    },
    {
      cursor: "e0",
      awaitingPickup: options.awaitingPickup ?? false,
      ownMessageIds: new Set(["key-1"]),
      sentAt: 0,
      timeoutMs: options.timeoutMs ?? 30 * 60_000,
      pollMs: 3_000,
      pickupLimitMs: 120_000,
      signal: controller.signal,
    },
  );
  return { outcome, events, afters, elapsedMs: clock };
}

const describeEvents = (events: FollowEvent[]) =>
  events.map((e) => (e.type === "entry" ? `${e.entry.role}/${e.entry.kind}: ${e.entry.body}` : e.type));

describe("following a started task", () => {
  it.each([
    ["replied → turn done", "replied", { kind: "turn_done", status: "replied" }],
    ["pr_open → turn done", "pr_open", { kind: "turn_done", status: "pr_open" }],
    ["failed → turn done (exit 2)", "failed", { kind: "turn_done", status: "failed" }],
    ["paused → turn done (exit 2)", "paused", { kind: "turn_done", status: "paused" }],
    ["cancelled → turn done (exit 2)", "cancelled", { kind: "turn_done", status: "cancelled" }],
  ])("%s", async (_rule, status, expected) => {
    const { outcome } = await follow([{ status: "pending" }, { status: "implementing" }, { status }]);
    expect(outcome).toEqual(expected);
  });

  it("prints each new entry once, not the run's own message, and moves the after cursor", async () => {
    const { events, afters } = await follow([
      { status: "pending", entries: [user("e1", "key-1", "my prompt")] },
      { status: "implementing", entries: [] },
      { status: "replied", entries: [agent("e2", "Which file?", "clarify")] },
    ]);
    expect(describeEvents(events)).toEqual(["agent/clarify: Which file?"]);
    expect(afters).toEqual(["e0", "e1", "e1"]);
  });

  it('"it says so when the task is queued": once per queued spell', async () => {
    const { events } = await follow([
      { status: "pending", queued: true },
      { status: "pending", queued: true },
      { status: "implementing" },
      { status: "replied", entries: [agent("e2", "done")] },
    ]);
    expect(describeEvents(events)).toEqual(["queued", "agent/response: done"]);
  });

  it('"when the timeout passes, exit code 3": timed out after the limit, polling every 3 s', async () => {
    const { outcome, elapsedMs } = await follow([{ status: "implementing" }], { timeoutMs: 10_000 });
    expect(outcome).toEqual({ kind: "timed_out", status: "implementing" });
    expect(elapsedMs).toBe(10_000);
  });

  it('"Ctrl-C stops waiting": the signal ends following as interrupted', async () => {
    const { outcome } = await follow([{ status: "implementing" }], { abortAfterPolls: 2 });
    expect(outcome).toEqual({ kind: "interrupted", status: "implementing" });
  });
});

describe("following a reply (rule 6)", () => {
  it('"not picked up within two minutes: the client says so and exits 3 without reporting the previous turn\'s result"', async () => {
    const { outcome, events, elapsedMs } = await follow([{ status: "completed" }], { awaitingPickup: true });
    expect(outcome).toEqual({ kind: "not_picked_up", status: "completed" });
    expect(events).toEqual([]);
    expect(elapsedMs).toBe(120_000);
  });

  it("an idle status before pickup is the previous turn's; the reply's turn is followed to its end", async () => {
    const { outcome, events } = await follow(
      [{ status: "failed" }, { status: "pending" }, { status: "replied", entries: [agent("e9", "fixed")] }],
      { awaitingPickup: true },
    );
    expect(outcome).toEqual({ kind: "turn_done", status: "replied" });
    expect(describeEvents(events)).toEqual(["picked_up", "agent/response: fixed"]);
  });

  it("a turn that ran entirely between two polls counts as picked up by its new entry", async () => {
    const { outcome } = await follow([{ status: "replied", entries: [agent("e9", "quick")] }], {
      awaitingPickup: true,
    });
    expect(outcome).toEqual({ kind: "turn_done", status: "replied" });
  });
});

describe("test-only intervals", () => {
  it.each([
    [{}, 3_000, 120_000],
    [{ BATON_CLIENT_POLL_MS: "10", BATON_CLIENT_PICKUP_MS: "20" }, 50, 50],
    [{ BATON_CLIENT_POLL_MS: "200", BATON_CLIENT_PICKUP_MS: "1500" }, 200, 1_500],
    [{ BATON_CLIENT_POLL_MS: "fast" }, 3_000, 120_000],
  ])("%o → poll %i ms, pickup %i ms (never below 50 ms)", (env, poll, pickup) => {
    expect(pollIntervalFrom(env)).toBe(poll);
    expect(pickupLimitFrom(env)).toBe(pickup);
  });
});

describe("following through an outage", () => {
  const dropped = new ServiceError(
    "network",
    "could not reach the service at https://baton.test (ECONNRESET)",
  );
  const failing = new ServiceError("service_error", "the service failed while reading the task (502)");

  it("a dropped connection or a 5xx is said once, and following goes on to the agent's answer", async () => {
    const { outcome, events } = await follow([
      { status: "implementing" },
      { status: "implementing", fails: dropped },
      { status: "implementing", fails: failing },
      { status: "replied", entries: [agent("e1", "Fixed.")] },
    ]);
    expect(outcome).toEqual({ kind: "turn_done", status: "replied" });
    expect(describeEvents(events)).toEqual(["connection_lost", "connection_back", "agent/response: Fixed."]);
  });

  it("an outage that lasts past --timeout ends as still working (exit 3), not as an error", async () => {
    const { outcome } = await follow(
      [{ status: "implementing" }, { status: "implementing", fails: dropped }],
      { timeoutMs: 60_000 },
    );
    expect(outcome).toEqual({ kind: "timed_out", status: "implementing" });
  });

  it("a refusal that is not transient (a revoked token) still ends following with the error", async () => {
    const revoked = new ServiceError(
      "unauthorised",
      "the service refused reading the task (401 invalid_token)",
    );
    await expect(
      follow([{ status: "implementing" }, { status: "implementing", fails: revoked }]),
    ).rejects.toBe(revoked);
  });
});
