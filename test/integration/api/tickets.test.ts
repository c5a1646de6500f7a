// Reference section 4 "GET .../tickets" and "POST .../tickets/delegate" through app.request(), on the seed's
// tracker and code-host issues (fixtures/seeds/api.json).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, TOKENS, waitForStatus } from "./harness.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  await h.close();
});

const search = async (query = "", token?: string) =>
  h.call("GET", `${API_PATHS.tickets("ws_acme")}${query}`, { token: token ?? (await freshToken(h)) });
const delegate = async (body: unknown, token?: string) =>
  h.call("POST", API_PATHS.delegate("ws_acme"), { token: token ?? (await freshToken(h)), body });
const titles = (answer: { body: { tickets: { title: string }[] } }) =>
  answer.body.tickets.map((t) => t.title);

describe("GET /v1/workspaces/{workspaceId}/tickets", () => {
  it("the caller's own first, then the team's unassigned ones; tracker before code host; left out: others', closed, pull requests, disabled repositories", async () => {
    const answer = await search();
    expect(answer.status).toBe(200);
    expect(titles(answer)).toEqual([
      "Login page shows a blank screen",
      "Add rate limiting docs",
      "Crash on empty login",
      "Button colour",
    ]);
    expect(answer.body.tickets[0]).toEqual({
      id: "trk_1",
      source: "tracker",
      identifier: "ENG-1",
      title: "Login page shows a blank screen",
      state: "open",
      context: "Since the last deploy.",
      url: "https://tracker.invalid/issue/ENG-1",
      workspaceId: "ws_acme",
      workspaceLabel: "Acme",
      yours: true,
    });
    expect(answer.body.tickets[2]).toMatchObject({
      source: "codehost",
      identifier: "acme/api#7",
      yours: true,
    });
    expect(answer.body.tracker).toEqual({ connected: true, identityLinked: true, identityBound: true });
    expect(answer.body.codehost).toEqual({ connected: true, repo: "" });
  });

  it("q: a substring of a tracker issue's title; code-host search terms", async () => {
    expect(titles(await search("?q=rate%20limiting"))).toEqual(["Add rate limiting docs"]);
    expect(titles(await search("?q=parser%20login"))).toEqual(["Crash on empty login"]);
  });

  it("q over 200 characters is refused", async () => {
    const answer = await search(`?q=${"a".repeat(201)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_request");
  });

  it("repo: an enabled repository is searched first; one that is not enabled is ignored", async () => {
    const first = await search("?repo=acme/web", await freshToken(h, "owner@acme.test"));
    expect(first.body.codehost.repo).toBe("acme/web");
    expect(
      first.body.tickets
        .filter((t: { source: string }) => t.source === "codehost")
        .map((t: { identifier: string }) => t.identifier),
    ).toEqual(["acme/web#3"]);
    const ignored = await search("?repo=acme/old");
    expect(ignored.body.codehost.repo).toBe("");
  });

  it("tracker issues appear only when the caller's tracker account is linked; code-host issues only with a code-host account", async () => {
    const nolink = await search("", TOKENS.nolink);
    expect(nolink.body.tickets).toEqual([]);
    expect(nolink.body.tracker).toEqual({ connected: true, identityLinked: false, identityBound: false });
    const unbound = await search("", await freshToken(h, "unbound@acme.test"));
    expect(unbound.body.tracker).toEqual({ connected: true, identityLinked: true, identityBound: false });
    expect(unbound.body.tickets.filter((t: { source: string }) => t.source === "tracker")).toEqual([]);
  });
});

describe("POST /v1/workspaces/{workspaceId}/tickets/delegate", () => {
  it.each([
    ["not linked", TOKENS.nolink],
    ["linked to another tracker", "UNBOUND"],
  ])(
    "a refusal carries error and a reason: tracker_identity_unlinked when the caller has not linked a tracker identity (%s)",
    async (_case, token) => {
      const answer = await delegate(
        { source: "tracker", id: "ENG-2" },
        token === "UNBOUND" ? await freshToken(h, "unbound@acme.test") : token,
      );
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({
        error: "tracker_identity_unlinked",
        reason: expect.stringMatching(/link/),
      });
    },
  );

  it.each([
    ["a closed issue", { source: "tracker", id: "ENG-4" }, 409, "ticket_closed"],
    [
      "an issue assigned to someone else",
      { source: "tracker", id: "ENG-3" },
      409,
      "ticket_assigned_elsewhere",
    ],
    ["a pull request", { source: "codehost", repo: "acme/api", number: 8 }, 409, "ticket_is_pull_request"],
    [
      "a repository that is not enabled",
      { source: "codehost", repo: "acme/old", number: 1 },
      400,
      "invalid_repo",
    ],
    ["no such tracker issue", { source: "tracker", id: "ENG-99" }, 404, "not_found"],
    ["no such code-host issue", { source: "codehost", repo: "acme/api", number: 99 }, 404, "not_found"],
    ["source missing", { id: "ENG-2" }, 400, "invalid_request"],
    [
      "number not greater than 0",
      { source: "codehost", repo: "acme/api", number: 0 },
      400,
      "invalid_request",
    ],
    ["id empty", { source: "tracker", id: "" }, 400, "invalid_request"],
  ])("refused: %s", async (_case, body, status, error) => {
    const answer = await delegate(body);
    expect(answer.status).toBe(status);
    expect(answer.body.error).toBe(error);
  });

  it("a tracker issue in a workspace whose tracker is not connected is refused: 409 tracker_not_connected, naming the settings", async () => {
    await h.db.run("UPDATE workspaces SET tracker_connected = 0 WHERE id = 'ws_acme'");
    try {
      const answer = await delegate({ source: "tracker", id: "ENG-2" });
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({
        error: "tracker_not_connected",
        reason: expect.stringMatching(/tracker/),
        settingsUrl: "http://127.0.0.1:9/dashboard/workspaces/ws_acme/settings",
      });
      expect(await h.db.get("SELECT task_id FROM tickets WHERE id = 'trk_2'")).toEqual({ task_id: null });
    } finally {
      await h.db.run("UPDATE workspaces SET tracker_connected = 1 WHERE id = 'ws_acme'");
    }
  });

  it("a code-host issue without a code-host account is refused", async () => {
    const answer = await delegate({ source: "codehost", repo: "acme/web", number: 3 }, TOKENS.nolink);
    expect(answer.body.error).toBe("codehost_account_missing");
  });

  it("202 {ok: true}; the task runs on the issue, appears in the task list, and its conversation is not under the conversation endpoint", async () => {
    const token = await freshToken(h);
    const answer = await delegate({ source: "codehost", repo: "acme/web", number: 3 }, await token);
    expect(answer).toMatchObject({ status: 202, body: { ok: true } });
    const listed = await h.call("GET", API_PATHS.tasks("ws_acme"), { token });
    const task = listed.body.tasks.find((t: { source: string }) => t.source === "codehost_issue");
    expect(task).toMatchObject({ title: "Button colour", repo: "acme/web", source: "codehost_issue" });
    await waitForStatus(h, task.id, ["replied"]);
    expect((await h.call("GET", API_PATHS.messages("ws_acme", task.id), { token })).body.error).toBe(
      "not_an_api_task",
    );
    // Already being worked on: left out of the search, refused a second time.
    expect(
      (await search("", await freshToken(h, "owner@acme.test"))).body.tickets.map(
        (t: { identifier: string }) => t.identifier,
      ),
    ).not.toContain("acme/web#3");
    expect(
      (
        await delegate(
          { source: "codehost", repo: "acme/web", number: 3 },
          await freshToken(h, "owner@acme.test"),
        )
      ).body.error,
    ).toBe("ticket_in_progress");
  });

  it("a tracker issue delegated by its id or identifier; the caller becomes its assignee when it had none", async () => {
    const token = await freshToken(h);
    expect((await delegate({ source: "tracker", id: "trk_2" }, token)).status).toBe(202);
    expect(await h.db.get("SELECT assignee, task_id FROM tickets WHERE id = 'trk_2'")).toEqual({
      assignee: "dev-t",
      task_id: expect.stringMatching(/^task_/),
    });
  });

  it("if the workspace queue is full the request is refused before the issue is touched", async () => {
    await h.db.run("UPDATE workspaces SET plan_concurrency = 0, plan_queue_size = 0 WHERE id = 'ws_acme'");
    try {
      const answer = await delegate({ source: "tracker", id: "ENG-1" });
      expect(answer.status).toBe(429);
      expect(answer.body).toMatchObject({ error: "queue_full", plan: "team" });
      expect(await h.db.get("SELECT task_id FROM tickets WHERE id = 'trk_1'")).toEqual({ task_id: null });
    } finally {
      await h.db.run("UPDATE workspaces SET plan_concurrency = 2, plan_queue_size = 3 WHERE id = 'ws_acme'");
    }
  });
});
