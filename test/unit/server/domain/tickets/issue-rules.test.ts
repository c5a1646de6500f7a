// Which webhook changes give an issue to the agent and which take it away, as tables over the payload fields
// (GitHub's `issues` actions; Linear's `Issue` `update` with `updatedFrom`, and its `Issue` `create`).
import { describe, expect, it } from "vitest";
import {
  classifyCodehostIssuesAction,
  classifyTrackerIssueCreate,
  classifyTrackerIssueUpdate,
} from "../../../../../src/server/domain/tickets/issue-rules.js";
import type { TrackerIssueData } from "../../../../../src/server/domain/tickets/tracker-payloads.js";

describe("code host: issues assigned to the agent's login or labelled with the agent's label are the agent's", () => {
  const triggers = { agentLogin: "baton-agent", agentLabel: "baton" };
  it.each([
    [{ action: "assigned", assignee: "baton-agent" }, { kind: "give" }],
    [{ action: "assigned", assignee: "Baton-Agent" }, { kind: "give" }],
    [{ action: "assigned", assignee: "zed" }, { kind: "none" }],
    [{ action: "labeled", label: "baton" }, { kind: "give" }],
    [{ action: "labeled", label: "BATON" }, { kind: "give" }],
    [{ action: "labeled", label: "bug" }, { kind: "none" }],
    [{ action: "closed" }, { kind: "take", why: "issue closed" }],
    [
      { action: "unassigned", assignee: "baton-agent" },
      { kind: "take", why: "issue unassigned" },
    ],
    [{ action: "unassigned", assignee: "zed" }, { kind: "none" }],
    [
      { action: "unlabeled", label: "baton" },
      { kind: "take", why: "issue unlabeled" },
    ],
    [{ action: "unlabeled", label: "bug" }, { kind: "none" }],
    [{ action: "reopened" }, { kind: "none" }],
    [{ action: "edited" }, { kind: "none" }],
  ])("%j → %j", (event, change) => {
    expect(classifyCodehostIssuesAction(triggers, event)).toEqual(change);
  });

  it("with no agent login configured, assignment never gives an issue (label only)", () => {
    expect(
      classifyCodehostIssuesAction(
        { agentLogin: null, agentLabel: "baton" },
        { action: "assigned", assignee: "baton-agent" },
      ),
    ).toEqual({
      kind: "none",
    });
  });
});

describe("tracker: an Issue update gives the issue to the agent when the assignee became the app's user or the labels gained the agent's", () => {
  const t = { agentUserId: "app-user", agentLabel: "baton" };
  const BATON = { id: "l-baton", name: "baton" };
  const BUG = { id: "l-bug", name: "Bug" };
  const issue = (over: Partial<TrackerIssueData> = {}): TrackerIssueData => ({
    id: "i1",
    identifier: "ENG-1",
    assigneeId: null,
    labelIds: [BUG.id],
    labels: [BUG],
    state: { type: "started" },
    ...over,
  });
  it.each([
    ["assigned to the app's user", issue({ assigneeId: "app-user" }), { assigneeId: null }, { kind: "give" }],
    ["assigned to a person", issue({ assigneeId: "p1" }), { assigneeId: null }, { kind: "none" }],
    [
      "the agent's label added",
      issue({ labelIds: [BUG.id, BATON.id], labels: [BUG, BATON] }),
      { labelIds: [BUG.id] },
      { kind: "give" },
    ],
    [
      "another label added while labelled",
      issue({ labelIds: [BUG.id, BATON.id], labels: [BUG, BATON] }),
      { labelIds: [BATON.id] },
      { kind: "none" },
    ],
    [
      "labelled and now also assigned",
      issue({ assigneeId: "app-user", labelIds: [BATON.id], labels: [BATON] }),
      { assigneeId: null },
      { kind: "none" },
    ],
    [
      "assigned to the app's user but already completed",
      issue({ assigneeId: "app-user", state: { type: "completed" } }),
      { assigneeId: null },
      { kind: "none" },
    ],
    ["a title change", issue({ assigneeId: "app-user" }), { title: "old" }, { kind: "none" }],
    [
      "state became completed",
      issue({ assigneeId: "app-user", state: { type: "completed" } }),
      { stateId: "s0" },
      { kind: "take", why: "issue completed" },
    ],
    [
      "state became canceled",
      issue({ state: { type: "canceled" } }),
      { stateId: "s0" },
      { kind: "take", why: "issue canceled" },
    ],
    ["state moved to started", issue({ state: { type: "started" } }), { stateId: "s0" }, { kind: "none" }],
    [
      "unassigned from the app's user",
      issue({ assigneeId: null }),
      { assigneeId: "app-user" },
      { kind: "take", why: "issue unassigned from the agent" },
    ],
    [
      "a label removed while not the agent's",
      issue(),
      { labelIds: [BUG.id, BATON.id] },
      { kind: "take", why: "label removed", byLabel: true },
    ],
    [
      "unassigned from the app's user but still labelled",
      issue({ labelIds: [BATON.id], labels: [BATON] }),
      { assigneeId: "app-user" },
      { kind: "none" },
    ],
  ])("%s", (_case, data, before, change) => {
    expect(classifyTrackerIssueUpdate(t, data, before)).toEqual(change);
  });

  it("without an app user, only the label gives the issue", () => {
    expect(
      classifyTrackerIssueUpdate({ agentUserId: null, agentLabel: "baton" }, issue({ assigneeId: "x" }), {
        assigneeId: null,
      }),
    ).toEqual({
      kind: "none",
    });
  });
});

describe("tracker: an Issue created already the agent's gives it, as the same label or assignee added later would (issue 35 B.14)", () => {
  const t = { agentUserId: "app-user", agentLabel: "baton" };
  const BATON = { id: "l-baton", name: "Baton" };
  const BUG = { id: "l-bug", name: "Bug" };
  const created = (over: Partial<TrackerIssueData> = {}): TrackerIssueData => ({
    id: "i1",
    identifier: "ENG-1",
    assigneeId: null,
    labelIds: [BUG.id],
    labels: [BUG],
    state: { type: "unstarted" },
    ...over,
  });
  it.each([
    [
      "created with the agent's label",
      created({ labelIds: [BUG.id, BATON.id], labels: [BUG, BATON] }),
      "give",
    ],
    [
      "created with only the agent's label, no labelIds field",
      created({ labelIds: undefined, labels: [BATON] }),
      "give",
    ],
    ["created assigned to the app's user", created({ assigneeId: "app-user" }), "give"],
    ["created with both", created({ assigneeId: "app-user", labelIds: [BATON.id], labels: [BATON] }), "give"],
    ["created with other labels only", created(), "none"],
    ["created assigned to a person", created({ assigneeId: "p1" }), "none"],
    ["created with no labels at all", created({ labelIds: [], labels: [] }), "none"],
    [
      "created labelled but already completed",
      created({ labelIds: [BATON.id], labels: [BATON], state: { type: "completed" } }),
      "none",
    ],
    [
      "created assigned but already canceled",
      created({ assigneeId: "app-user", state: { type: "canceled" } }),
      "none",
    ],
  ] as const)("%s: %s", (_case, data, kind) => {
    expect(classifyTrackerIssueCreate(t, data)).toEqual({ kind });
  });

  it("a create never takes anything away (nothing was the agent's before it)", () => {
    for (const data of [
      created(),
      created({ labelIds: [], labels: [] }),
      created({ state: { type: "canceled" } }),
    ])
      expect(classifyTrackerIssueCreate(t, data).kind).toBe("none");
  });
});
