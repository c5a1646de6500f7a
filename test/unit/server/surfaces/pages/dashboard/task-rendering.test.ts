// The task pages' pure parts: a queued task's place in its workspace's queue (the engine starts the oldest queued
// turn first), statuses said in words, and every value a person or agent wrote escaped on the page.
import { describe, expect, it } from "vitest";
import type { ApiTask } from "../../../../../../src/server/domain/tasks/views.js";
import { assignQueuePositions } from "../../../../../../src/server/surfaces/pages/dashboard/queue.js";
import {
  entryLabel,
  renderEntry,
} from "../../../../../../src/server/surfaces/pages/dashboard/render-entries.js";
import {
  ordinal,
  renderStatus,
} from "../../../../../../src/server/surfaces/pages/dashboard/render-status.js";
import { renderTaskList } from "../../../../../../src/server/surfaces/pages/dashboard/render-task-list.js";
import { renderTaskPage } from "../../../../../../src/server/surfaces/pages/dashboard/render-task-page.js";

const TASK: ApiTask = {
  id: "task_1",
  status: "pending",
  source: "api",
  title: "<img src=x onerror=alert(1)>",
  repo: "acme/api",
  pullRequest: { url: "https://code.test/acme/api/pull/1?a=1&b=<2>", merged: true },
  queued: true,
  pausedOn: null,
  createdAt: "2026-11-26T10:00:00.000Z",
  lastActivityAt: "2026-11-26T11:00:00.000Z",
  url: "http://127.0.0.1/dashboard/workspaces/ws/tasks/task_1",
};

describe("assignQueuePositions", () => {
  it.each([
    ["no queued turn", [], {}],
    ["one", [{ taskId: "a", seq: 9 }], { a: { position: 1, of: 1 } }],
    [
      "oldest turn (lowest seq) first, whatever the input order",
      [
        { taskId: "c", seq: 30 },
        { taskId: "a", seq: 10 },
        { taskId: "b", seq: 20 },
      ],
      { a: { position: 1, of: 3 }, b: { position: 2, of: 3 }, c: { position: 3, of: 3 } },
    ],
  ])("%s", (_, turns, expected) => {
    expect(Object.fromEntries(assignQueuePositions(turns))).toEqual(expected);
  });
});

describe("statuses in words", () => {
  it.each([
    [1, "1st"],
    [2, "2nd"],
    [3, "3rd"],
    [4, "4th"],
    [11, "11th"],
    [12, "12th"],
    [13, "13th"],
    [21, "21st"],
    [112, "112th"],
  ])("ordinal(%i) is %s", (n, word) => expect(ordinal(n)).toBe(word));

  it("a queued task says its place in line; a paused one says why", () => {
    expect(renderStatus(TASK, { position: 2, of: 3 }).toString()).toBe(
      '<span class="badge pending">Pending</span> <span class="badge queued">Queued: 2nd of 3 in line</span>',
    );
    expect(
      renderStatus({ ...TASK, queued: false, status: "paused", pausedOn: "billing" }, undefined).toString(),
    ).toContain("(billing is inactive)");
  });

  it.each([
    [{ role: "user", kind: "message" }, "User"],
    [{ role: "agent", kind: "response" }, "Agent"],
    [{ role: "agent", kind: "clarify" }, "Agent asks"],
    [{ role: "agent", kind: "error" }, "Agent error"],
    [{ role: "platform", kind: "message" }, "Baton"],
  ] as const)("an entry %o is labelled %s (words, not only colour)", (entry, label) => {
    expect(entryLabel(entry)).toBe(label);
  });
});

describe("escaping", () => {
  it("an entry's body is escaped", () => {
    const out = renderEntry({
      id: "msg_1",
      messageId: null,
      role: "agent",
      kind: "response",
      body: "</p><script>alert(1)</script>",
      createdAt: TASK.createdAt,
    }).toString();
    expect(out).not.toContain("<script>");
    expect(out).toContain("&lt;/p&gt;&lt;script&gt;");
  });

  it("the list and the task page escape the title and the pull request's address", () => {
    const list = renderTaskList({
      workspaceId: "ws",
      tasks: [TASK],
      places: new Map(),
      status: null,
      nextCursor: null,
      paged: false,
    }).toString();
    expect(list).not.toContain("<img");
    const page = renderTaskPage({
      workspaceId: "ws",
      task: TASK,
      place: undefined,
      conversation: { entries: [], earlier: null, before: null },
      activity: { turns: [], earlier: 0 },
      csrfToken: "c",
      followUpKey: "k",
      followUpText: "</textarea><b>kept</b>",
    }).toString();
    expect(page).toContain("pull/1?a=1&amp;b=&lt;2&gt;");
    expect(page).toContain(">&lt;/textarea&gt;&lt;b&gt;kept&lt;/b&gt;</textarea>");
    expect(page).toContain("Merged");
  });

  it("an issue's task says where its conversation is kept and offers no follow-up box", () => {
    const page = renderTaskPage({
      workspaceId: "ws",
      task: { ...TASK, source: "tracker" },
      place: undefined,
      conversation: { elsewhere: "this task started from the tracker; its conversation stays on the issue" },
      activity: { turns: [], earlier: 0 },
      csrfToken: "c",
      followUpKey: "k",
    }).toString();
    expect(page).toContain("its conversation stays on the issue. Read and reply on the issue");
    expect(page).not.toContain("<textarea");
    expect(page).toContain("Stop this turn");
  });
});
