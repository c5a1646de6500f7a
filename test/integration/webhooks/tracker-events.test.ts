// The tracker's events applied to the workspace connected to their organisation, through the receiver and the
// queue, on the local tracker (its comments land in the store). The test plays Linear: it signs the fixtures
// and sets webhookTimestamp to now.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectionOfOrganization } from "../../../src/server/adapters/tracker/connections.js";
import { userIdFor } from "../../../src/server/domain/auth/users.js";
import { TOKENS, until } from "../api/harness.js";
import {
  AGENT_USER_ID,
  applyDelivery,
  createWebhookHarness,
  freshTracker,
  ORGANIZATION_ID,
  type Payload,
  taskOfTicket,
  type WebhookHarness,
} from "./harness.js";

let h: WebhookHarness;
beforeAll(async () => {
  h = await createWebhookHarness();
});
afterAll(async () => {
  await h.close();
});

let count = 0;
function onNewIssue(name: string, edit: (p: Payload) => void = () => {}): Payload {
  const payload = freshTracker(name);
  payload.data.id = `issue-${++count}`;
  payload.data.identifier = `ENG-${100 + count}`;
  edit(payload);
  return payload;
}

function apply(payload: Payload): Promise<string> {
  payload.webhookTimestamp = Date.now();
  return applyDelivery(h, "tracker", payload.type, payload);
}

describe("an Issue update that gives the issue to the agent starts a task", () => {
  it.each([
    ["assigned to the app's user", "issue-update-assigned"],
    ["given the agent's label", "issue-update-labeled"],
  ])(
    "%s: a tracker task with ticket_id = the issue id, created by the actor's member; the reply is posted on the issue",
    async (_case, name) => {
      const payload = onNewIssue(name);
      expect(await apply(payload)).toMatch(/^started task task_/);
      const task = (await taskOfTicket(h.db, payload.data.id))!;
      expect(task).toMatchObject({
        source: "tracker",
        title: "Export fails for large workspaces",
        created_by: userIdFor("dev@acme.test"),
      });
      const first = await h.db.get("SELECT body FROM task_messages WHERE task_id = ? ORDER BY seq LIMIT 1", [
        task.id,
      ]);
      expect(first).toEqual({
        body: `${payload.data.identifier}: Export fails for large workspaces\n\nThe CSV export times out past 10,000 rows.`,
      });
      const comments = await until(
        async () =>
          (await h.comments("tracker", payload.data.id)).length > 0
            ? h.comments("tracker", payload.data.id)
            : undefined,
        "the reply on the issue",
      );
      expect(comments[0]).toMatch(/^Done: .*\n\n<!-- baton:agt_[^ ]+ -->$/s);
    },
  );

  it.each([
    [
      "an update that touches neither assignee nor labels",
      (p: Payload) => (p.updatedFrom = { title: "Old title" }),
    ],
    ["the label was already there", (p: Payload) => (p.updatedFrom.labelIds = p.data.labelIds)],
  ])("ignored: %s", async (_case, edit) => {
    const payload = onNewIssue("issue-update-labeled", edit);
    expect(await apply(payload)).toMatch(/^ignored: /);
    expect(await taskOfTicket(h.db, payload.data.id)).toBeUndefined();
  });

  it("refused when the actor is not a member with a bound tracker identity: a comment says what to do", async () => {
    const payload = onNewIssue(
      "issue-update-labeled",
      (p) => (p.actor = { id: "ub-t", type: "user", name: "Un Bound" }),
    );
    expect(await apply(payload)).toBe("refused: actor ub-t is not a member");
    expect((await h.comments("tracker", payload.data.id))[0]).toMatch(
      /Un Bound is not a member.*links their tracker account/,
    );
  });

  it("an unknown organisation is ignored and says so", async () => {
    const payload = onNewIssue("issue-update-labeled", (p) => (p.organizationId = "org-elsewhere"));
    expect(await apply(payload)).toBe("ignored: unknown organization org-elsewhere");
  });
});

describe("an Issue created already the agent's starts its task like a label added later (issue 35 B.14)", () => {
  // Linear sends only `Issue` `create` for an issue made with the agent's label or assignee already on it: no
  // `update` follows, so the create itself must start the task.
  it.each([
    ["created with the agent's label", (_p: Payload) => {}],
    [
      "created assigned to the app's user",
      (p: Payload) => {
        p.data.assigneeId = AGENT_USER_ID;
        p.data.labels = p.data.labels.filter((l: { name: string }) => l.name !== "baton");
        p.data.labelIds = p.data.labels.map((l: { id: string }) => l.id);
      },
    ],
  ])("%s: a tracker task as the creator's member, its reply posted on the issue", async (_case, edit) => {
    const payload = onNewIssue("issue-create-labeled", edit);
    expect(payload.action).toBe("create");
    expect(payload.updatedFrom).toBeUndefined();
    expect(await apply(payload)).toMatch(/^started task task_/);
    expect(await taskOfTicket(h.db, payload.data.id)).toMatchObject({
      source: "tracker",
      title: "Export fails for large workspaces",
      created_by: userIdFor("dev@acme.test"),
    });
    await until(
      async () => (await h.comments("tracker", payload.data.id)).length > 0,
      "the reply on the issue",
    );
  });

  it.each([
    [
      "created with other labels only",
      (p: Payload) => {
        p.data.labels = p.data.labels.filter((l: { name: string }) => l.name !== "baton");
        p.data.labelIds = p.data.labels.map((l: { id: string }) => l.id);
      },
    ],
    ["created labelled but already completed", (p: Payload) => (p.data.state.type = "completed")],
  ])("ignored: %s", async (_case, edit) => {
    const payload = onNewIssue("issue-create-labeled", edit);
    expect(await apply(payload)).toMatch(/^ignored: /);
    expect(await taskOfTicket(h.db, payload.data.id)).toBeUndefined();
  });

  it("created by someone who is not a member: refused with a comment, as for an update", async () => {
    const payload = onNewIssue(
      "issue-create-labeled",
      (p) => (p.actor = { id: "ub-t", type: "user", name: "Un Bound" }),
    );
    expect(await apply(payload)).toBe("refused: actor ub-t is not a member");
    expect((await h.comments("tracker", payload.data.id))[0]).toMatch(/Un Bound is not a member/);
  });
});

describe("a Comment created by a member on an issue with a task is a follow-up", () => {
  it("runs a second turn once per comment; the app user's own comment is ignored", async () => {
    const payload = onNewIssue("issue-update-assigned");
    await apply(payload);
    const task = (await taskOfTicket(h.db, payload.data.id))!;
    await until(async () => (await h.comments("tracker", payload.data.id)).length === 1, "the first reply");
    const comment = freshTracker("comment-create");
    comment.data.issueId = payload.data.id;
    comment.data.id = `comment-${count}`;
    expect(await apply(comment)).toBe(`follow-up on task ${task.id} from comment comment-${count}`);
    await until(async () => (await h.comments("tracker", payload.data.id)).length === 2, "the second reply");
    expect((await h.comments("tracker", payload.data.id))[1]).toMatch(
      /^Done: Please keep the old endpoint working too\./,
    );
    expect(await apply(structuredClone(comment))).toMatch(/already taken/);
    const own = structuredClone(comment);
    own.data.id = `comment-own-${count}`;
    own.data.userId = AGENT_USER_ID;
    own.data.body = "Done.";
    expect(await apply(own)).toBe("ignored: the service's own comment");
  });
});

describe("the issue completed, canceled or taken from the agent stops its running turn", () => {
  it.each([
    ["completed", "issue-update-completed", (_p: Payload) => {}],
    ["canceled", "issue-update-completed", (p: Payload) => (p.data.state.type = "canceled")],
    ["label removed", "issue-update-unlabeled", (_p: Payload) => {}],
  ])("%s: stopped, the task cancelled", async (_case, name, edit) => {
    // The seed's scripted agent works 10 minutes on a prompt that says "slow".
    const start = onNewIssue("issue-update-labeled", (p) => (p.data.description = "slow work"));
    await apply(start);
    const task = (await taskOfTicket(h.db, start.data.id))!;
    await until(
      async () => (await taskOfTicket(h.db, start.data.id))!.status === "implementing",
      "the turn to run",
    );
    const stop = freshTracker(name);
    stop.data.id = start.data.id;
    stop.data.identifier = start.data.identifier;
    edit(stop);
    expect(await apply(stop)).toMatch(new RegExp(`^stopped task ${task.id}`));
    expect((await taskOfTicket(h.db, start.data.id))!.status).toBe("cancelled");
  });
});

describe("a member's delegated issue is not stopped by a label change", () => {
  it("a label removed from a delegated issue (the payload names labels by id only) is ignored", async () => {
    const response = await h.app.http.request("/v1/workspaces/ws_acme/tickets/delegate", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.dev}`, "content-type": "application/json" },
      body: JSON.stringify({ source: "tracker", id: "ENG-1" }),
    });
    expect(response.status).toBe(202);
    const unlabeled = freshTracker("issue-update-unlabeled");
    unlabeled.data.id = "trk_1";
    unlabeled.data.identifier = "ENG-1";
    expect(await apply(unlabeled)).toBe("ignored: a label removed from ENG-1, whose task a member delegated");
  });
});

describe("a task started by a tracker delegation logs its audit event, as every other task start does (issue 35 C.17)", () => {
  const started = (taskId: string) =>
    h.logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === "task.started" && line.taskId === taskId);

  it("given to the agent on the tracker (webhook): task.started as the actor's member, via webhook", async () => {
    const payload = onNewIssue("issue-update-assigned");
    expect(await apply(payload)).toMatch(/^started task task_/);
    const task = (await taskOfTicket(h.db, payload.data.id))!;
    expect(started(task.id)).toEqual([
      expect.objectContaining({
        actor: "dev@acme.test",
        workspace: "ws_acme",
        source: "tracker",
        issue: payload.data.identifier,
        via: "webhook",
      }),
    ]);
  });

  it("delegated by a member (POST /tickets/delegate): task.started with the request id, via delegate", async () => {
    const response = await h.app.http.request("/v1/workspaces/ws_acme/tickets/delegate", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.dev}`, "content-type": "application/json" },
      body: JSON.stringify({ source: "tracker", id: "ENG-2" }),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ ok: true });
    const task = (await taskOfTicket(h.db, "trk_2"))!;
    expect(started(task.id)).toEqual([
      expect.objectContaining({
        requestId: response.headers.get("baton-request-id"),
        actor: "dev@acme.test",
        workspace: "ws_acme",
        source: "tracker",
        via: "delegate",
      }),
    ]);
  });
});

describe("OAuthApp revoked disconnects the workspace", () => {
  it("the connection goes and tracker.disconnected is logged", async () => {
    expect(await apply(freshTracker("oauthapp-revoked"))).toMatch(/^disconnected the workspace/);
    expect(await connectionOfOrganization(h.db, ORGANIZATION_ID)).toBeUndefined();
    expect(h.logs.some((l) => l.includes('"event":"tracker.disconnected"'))).toBe(true);
    expect(await apply(onNewIssue("issue-update-labeled"))).toMatch(/ignored: unknown organization/);
  });
});
