// "What the agent did" on the task page (issue 34, point 4: "shows it per turn ... works without JavaScript ...
// tool calls told apart by label"): the items a turn's records make, and their HTML.
import { describe, expect, it } from "vitest";
import type { ActivityRecord } from "../../../../../../src/server/adapters/agents/port.js";
import type { ApiActivityTurn } from "../../../../../../src/server/domain/tasks/views.js";
import { toActivityItems } from "../../../../../../src/server/surfaces/pages/dashboard/activity-view.js";
import { renderActivity } from "../../../../../../src/server/surfaces/pages/dashboard/render-activity.js";
import { liveHazards } from "../../../../../helpers/live-html.js";

const AT = "2026-11-28T10:00:00.000Z";
const rec = (kind: string, data: Record<string, unknown>): ActivityRecord => ({ at: AT, kind, data });

const RECORDS: ActivityRecord[] = [
  rec("tool_call", {
    toolCallId: "c1",
    title: "Read README.md",
    kind: "read",
    status: "pending",
    locations: [{ path: "README.md" }],
  }),
  rec("plan", { entries: [{ content: "Read the file", status: "in_progress", priority: "high" }] }),
  rec("tool_call_update", { toolCallId: "c1", status: "completed" }),
  rec("tool_call", { toolCallId: "c2", title: "npm test", kind: "execute", status: "in_progress" }),
  rec("permission", {
    toolCall: { toolCallId: "c2", title: "npm test" },
    options: [{ optionId: "allow-always", name: "Always allow", kind: "allow_always" }],
    outcome: { outcome: "selected", optionId: "allow-always" },
  }),
  rec("tool_call_update", { toolCallId: "c2", status: "failed" }),
  rec("plan", {
    entries: [
      { content: "Read the file", status: "completed", priority: "high" },
      { content: "Edit it", status: "pending", priority: "low" },
    ],
  }),
  rec("agent_message_chunk", { text: "I **edited** the file." }),
  rec("baton_tool", { tool: "open_pull_request", title: "Fix the README", draft: false }),
  rec("current_mode_update", { currentModeId: "auto" }),
];

const turn = (over: Partial<ApiActivityTurn> = {}): ApiActivityTurn => ({
  turnId: "turn_1",
  number: 1,
  state: "succeeded",
  startedAt: AT,
  endedAt: AT,
  recordedAt: AT,
  dropped: 0,
  records: RECORDS,
  ...over,
});

describe("toActivityItems", () => {
  it("folds a tool call's updates into one item with its latest status, and keeps the turn's plan as last updated where it began", () => {
    expect(toActivityItems(RECORDS)).toEqual([
      {
        type: "tool",
        id: "c1",
        kind: "read",
        title: "Read README.md",
        status: "completed",
        paths: ["README.md"],
      },
      {
        type: "plan",
        entries: [
          { content: "Read the file", status: "completed", priority: "high" },
          { content: "Edit it", status: "pending", priority: "low" },
        ],
      },
      { type: "tool", id: "c2", kind: "execute", title: "npm test", status: "failed", paths: [] },
      { type: "permission", title: "npm test", outcome: "Always allow" },
      { type: "message", who: "agent", text: "I **edited** the file." },
      { type: "baton_tool", tool: "open_pull_request", detail: "Fix the README" },
      { type: "other", kind: "current_mode_update", detail: "currentModeId: auto" },
    ]);
  });

  it("an update for a call it never saw (Gemini sends tool details only in the permission request) is an item of its own", () => {
    expect(toActivityItems([rec("tool_call_update", { toolCallId: "x", status: "completed" })])).toEqual([
      { type: "tool", id: "x", kind: "", title: "", status: "completed", paths: [] },
    ]);
  });

  it("fields of the wrong type are ignored, never shown as [object Object]", () => {
    const items = toActivityItems([
      rec("tool_call", { toolCallId: "y", title: { a: 1 }, kind: 3, status: null }),
    ]);
    expect(items).toEqual([{ type: "tool", id: "y", kind: "3", title: "", status: "", paths: [] }]);
  });
});

describe("renderActivity", () => {
  const page = renderActivity({
    turns: [turn({ turnId: "turn_0", number: 1 }), turn({ turnId: "turn_9", number: 2, state: "failed" })],
    earlier: 0,
  }).toString();

  it("has the heading, one <details> per turn, the latest open, each saying its number and how it ended", () => {
    expect(page).toContain('<h2 id="activity-heading">What the agent did</h2>');
    expect(page).toContain('<details class="turn-activity" id="activity-turn_0">');
    expect(page).toContain('<details class="turn-activity" id="activity-turn_9" open>');
    expect(page).toContain("Turn 1, ended with a reply · 10 records");
    expect(page).toContain("Turn 2, failed · 10 records");
  });

  it("tells tool calls apart by words: kind badge, title, status; plan entries with their status; the agent's message as Markdown", () => {
    expect(page).toContain(
      '<span class="badge">Read</span> <span class="tool-title">Read README.md</span> · <span class="status completed">Completed</span> · <span class="paths">README.md</span>',
    );
    expect(page).toContain(
      '<span class="badge">Run</span> <span class="tool-title">npm test</span> · <span class="status failed">Failed</span>',
    );
    expect(page).toContain(
      '<li><span class="badge">Pending</span> Edit it <span class="hint">(low priority)</span></li>',
    );
    expect(page).toContain(
      '<p class="label">Agent said</p>\n<div class="markdown"><p>I <strong>edited</strong> the file.</p>',
    );
    expect(page).toContain(
      '<span class="badge">Permission</span> npm test: <span class="status">Always allow</span>',
    );
    expect(page).toContain(
      '<span class="badge">Baton tool</span> <span class="tool-title">open_pull_request</span>: Fix the README',
    );
  });

  it("says how many records were dropped, and that earlier turns are the API's", () => {
    const out = renderActivity({
      turns: [turn({ dropped: 4, records: [rec("dropped", { records: 4, reason: "r" }), RECORDS[0]!] })],
      earlier: 3,
    }).toString();
    expect(out).toContain("Turn 1, ended with a reply · 1 record ·");
    expect(out).toContain("4 earlier records were dropped to keep the turn within its 4 MiB.");
    expect(out).toContain("3 earlier turns are not shown here; the API's activity route returns every turn.");
  });

  it("says when nothing is recorded yet", () => {
    expect(renderActivity({ turns: [], earlier: 0 }).toString()).toContain("Nothing recorded yet.");
  });

  it("hostile text in any field stays text: titles, paths, kinds, statuses, plan entries and messages", () => {
    const evil = '<img src=x onerror=alert(1)><script>alert(2)</script>" onclick="x';
    const out = renderActivity({
      turns: [
        turn({
          records: [
            rec("tool_call", {
              toolCallId: evil,
              title: evil,
              kind: evil,
              status: evil,
              locations: [{ path: evil }],
            }),
            rec("plan", { entries: [{ content: evil, status: evil, priority: evil }] }),
            rec("agent_message_chunk", {
              text: `${evil} [x](javascript:alert(3)) ![i](data:image/png;base64,AA)`,
            }),
            rec("permission", { toolCall: { title: evil }, outcome: { outcome: evil } }),
            rec(evil, { detail: evil }),
          ],
        }),
      ],
      earlier: 0,
    }).toString();
    expect(liveHazards(out)).toEqual([]);
    expect(out).toContain('<span class="status other">');
  });
});
