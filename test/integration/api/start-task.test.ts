// Reference section 4 "POST /v1/workspaces/{workspaceId}/tasks", "GET .../tasks/{taskId}", section 7's codes for
// them and section 8's sizes, through app.request(): one row per sentence.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, waitForStatus } from "./harness.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  await h.close();
});

/** Starts a task; an accepted one is followed to its reply, so the 5-task limit never gets in the way. */
async function start(body: unknown, init: { token?: string; key?: string; workspace?: string } = {}) {
  const answer = await h.call("POST", API_PATHS.tasks(init.workspace ?? "ws_acme"), {
    token: init.token ?? (await freshToken(h)),
    body,
    headers: init.key === undefined ? {} : { "idempotency-key": init.key },
  });
  if (answer.status === 202) await waitForStatus(h, answer.body.task.id, ["replied"]);
  return answer;
}

describe("POST /v1/workspaces/{workspaceId}/tasks", () => {
  const long = "x".repeat(100_001);
  it.each([
    ["prompt missing", {}],
    ["prompt empty", { prompt: "" }],
    ["prompt only whitespace (empty after trimming)", { prompt: " \n\t " }],
    ["prompt over 100,000 characters", { prompt: long }],
    [
      "prompt over 100,000 characters counted as characters, not UTF-16 units",
      { prompt: "😀".repeat(100_001) },
    ],
    ["prompt not a string", { prompt: 42 }],
    ["the body is not an object", ["fix it"]],
    ["the body is null", null],
  ])("prompt: 1 to 100,000 characters after trimming; else 400 invalid_prompt (%s)", async (_case, body) => {
    const answer = await start(body);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_prompt", reason: expect.stringMatching(/prompt/) });
  });

  it.each([
    ["exactly 100,000 characters", "y".repeat(100_000)],
    ["100,000 characters after trimming the spaces around them", `  ${"y".repeat(100_000)}  `],
    ["100,000 emoji (two UTF-16 units each)", "😀".repeat(100_000)],
  ])("prompt: %s is accepted", async (_case, prompt) => {
    const answer = await start({ prompt });
    expect(answer.status).toBe(202);
  });

  it.each([
    ["empty", ""],
    ["only spaces", "   "],
    ["over 200 characters", "t".repeat(201)],
    ["not a string", 7],
  ])("title: empty or too long gives 400 invalid_title (%s)", async (_case, title) => {
    const answer = await start({ prompt: "fix it", title });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_title");
  });

  it.each([
    ["given", { prompt: "fix it", title: "T".repeat(200) }, "T".repeat(200)],
    ["null: the prompt's first line", { prompt: "first line\nsecond", title: null }, "first line"],
    [
      "omitted: the prompt's first line cut to 80 characters",
      { prompt: `${"a".repeat(100)}\nmore` },
      "a".repeat(80),
    ],
    [
      "omitted, a prompt with leading blank lines: its first line after trimming",
      { prompt: "\n\n  hello there  \nmore" },
      "hello there",
    ],
  ])("title %s", async (_case, body, title) => {
    const answer = await start(body);
    expect(answer.status).toBe(202);
    expect(answer.body.task.title).toBe(title);
  });

  it.each([
    ["a repository that is disconnected", "acme/old"],
    ["a repository the workspace does not have", "acme/nope"],
    ["another workspace's repository", "beta/app"],
    ["not owner/name", "just-a-name"],
    ["not a string", 3],
  ])("repo: not connected gives 400 invalid_repo (%s)", async (_case, repo) => {
    const answer = await start({ prompt: "fix it", repo });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_repo");
  });

  it("repo: a connected repository is kept; omitted or null lets the agent choose", async () => {
    expect((await start({ prompt: "fix it", repo: "acme/api" })).body.task.repo).toBe("acme/api");
    expect((await start({ prompt: "fix it", repo: null })).body.task.repo).toBeNull();
    expect((await start({ prompt: "fix it" })).body.task.repo).toBeNull();
  });

  it("202 {task, messageId}; the new task's status in the response is pending, source api", async () => {
    const answer = await start({ prompt: "fix the login page", repo: "acme/web" });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({
      task: {
        id: expect.stringMatching(/^task_/),
        status: "pending",
        source: "api",
        title: "fix the login page",
        repo: "acme/web",
        pullRequest: null,
        queued: false,
        pausedOn: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        lastActivityAt: expect.stringMatching(/Z$/),
        url: `http://127.0.0.1:9/dashboard/workspaces/ws_acme/tasks/${answer.body.task.id}`,
      },
      messageId: expect.stringMatching(/^msg_/),
    });
  });

  it("the key becomes the first message's messageId", async () => {
    const answer = await start({ prompt: "with a key" }, { key: "my-key-001" });
    expect(answer.body.messageId).toBe("my-key-001");
    const conversation = await h.call("GET", API_PATHS.messages("ws_acme", answer.body.task.id));
    expect(conversation.body.messages[0]).toMatchObject({
      role: "user",
      kind: "message",
      body: "with a key",
      messageId: "my-key-001",
    });
  });

  it("a refusal names which check failed: the workspace is not connected to the code host (409 codehost_not_connected)", async () => {
    const answer = await start({ prompt: "x" }, { workspace: "ws_nohost" });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({
      error: "codehost_not_connected",
      settingsUrl: "http://127.0.0.1:9/dashboard/workspaces/ws_nohost/settings",
    });
  });

  it("a refusal names which check failed: billing does not allow the task (402 billing_inactive)", async () => {
    const answer = await start({ prompt: "x" }, { workspace: "ws_broke" });
    expect(answer.status).toBe(402);
    expect(answer.body).toMatchObject({
      error: "billing_inactive",
      plan: "standard",
      billingUrl: "http://127.0.0.1:9/dashboard/workspaces/ws_broke/billing",
    });
  });

  it("GET returns one Task, bare, for any task of the workspace; no such task, or another workspace's task: 404 not_found", async () => {
    const made = await start({ prompt: "read me back" });
    const task = await h.call("GET", API_PATHS.task("ws_acme", made.body.task.id));
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({ id: made.body.task.id, source: "api", title: "read me back" });
    expect((await h.call("GET", API_PATHS.task("ws_acme", "task_nope"))).body.error).toBe("not_found");
    const elsewhere = await h.call("GET", API_PATHS.task("ws_beta", made.body.task.id), {
      token: await freshToken(h, "owner@acme.test"),
    });
    expect(elsewhere.status).toBe(404);
  });
});
