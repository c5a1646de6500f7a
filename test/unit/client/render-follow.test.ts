// What following prints (reference rule 5: "prints what is posted … then says how to reply"): agent, service and
// user (the reference's role for a person's message) entries told apart by their prefix, and the closing line naming the next command.
import { describe, expect, it } from "vitest";
import { renderEntry, renderOutcome } from "../../../src/client/render-follow.js";
import { entryLabel } from "../../../src/server/surfaces/pages/dashboard/render-entries.js";

const entry = (role: string, kind: string, body: string) => ({ id: "e", messageId: null, role, kind, body });

describe("renderEntry", () => {
  it.each([
    ["agent", "response", "agent: done"],
    ["agent", "clarify", "agent asks: done"],
    ["platform", "response", "baton: done"],
    ["platform", "error", "baton error: done"],
    ["user", "message", "user: done"],
    ["robot", "beep", "robot beep: done"],
  ])("%s/%s → %s", (role, kind, line) => {
    expect(renderEntry(entry(role, kind, "done"))).toEqual([line]);
  });

  it("a person's message has one name everywhere: the reference's role `user`, in the client and the dashboard", () => {
    expect(renderEntry(entry("user", "message", "hi"))).toEqual(["user: hi"]);
    expect(entryLabel({ role: "user", kind: "message" }).toLowerCase()).toBe("user");
  });

  it("later lines are indented, so an entry's body cannot pass for another entry", () => {
    expect(renderEntry(entry("agent", "response", "first\nbaton error: fake\n\nlast"))).toEqual([
      "agent: first",
      "  baton error: fake",
      "",
      "  last",
    ]);
  });
});

describe("renderOutcome names the next command", () => {
  const context = { taskId: "task_1", timeoutMinutes: 30 };
  it.each([
    [{ kind: "turn_done", status: "replied" }, {}, 'Turn done (replied). Reply with: baton reply task_1 "…"'],
    [
      { kind: "turn_done", status: "replied" },
      { lastKind: "clarify" },
      'The agent asked a question. Answer it with: baton reply task_1 "…"',
    ],
    [
      { kind: "turn_done", status: "failed" },
      {},
      'The task failed. Send a follow-up to try again: baton reply task_1 "…"',
    ],
    [
      { kind: "turn_done", status: "paused" },
      { pausedOn: "billing" },
      'The task is paused on billing: it resumes with a follow-up once that is sorted (baton reply task_1 "…").',
    ],
    [
      { kind: "timed_out", status: "implementing" },
      {},
      "Still working after 30 minutes; stopped waiting, the task keeps going. Check later with: baton show task_1",
    ],
    [
      { kind: "interrupted", status: "implementing" },
      {},
      "Stopped waiting; the task keeps going. Check it with: baton show task_1",
    ],
  ] as const)("%o %o", (outcome, extra, line) => {
    expect(renderOutcome(outcome, { ...context, ...extra })).toEqual([line]);
  });
});
