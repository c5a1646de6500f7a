// Manual agent mode (issue 21, item 20), black-box: a real `baton serve --agent manual` on loopback with
// fixtures/seeds/api.json (ws_acme: plan concurrency 2, queue 3). A task's turn waits until a member stops it or an
// operator answers it with `baton admin task answer` (the real CLI) or the admin route behind it; the answer is
// visible through the public API. Six starts show the running slots, the queue and the 5-task limit of
// reference sections 7 and 8.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, HEADERS } from "../../../../../src/transport/wire.js";
import { runBaton } from "../../../../helpers/cli.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../../../helpers/serve.js";
import {
  API_SEED,
  createApiHarness,
  ADMIN_TOKEN as HARNESS_ADMIN_TOKEN,
  TOKENS,
  until,
} from "../../../api/harness.js";

let serve: ServeHandle;
/** The admin API's address: its own listener once ServeHandle has `adminUrl`, the service's address before. */
let adminUrl: string;
beforeAll(async () => {
  serve = await startServe({ seed: API_SEED, args: ["--agent", "manual"] });
  adminUrl = (serve as Partial<{ adminUrl: string }>).adminUrl ?? serve.url;
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
});

async function api(method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(new URL(path, serve.url), {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    // biome-ignore lint/suspicious/noExplicitAny: the public API's shapes are checked by its own suites
    body: (text ? JSON.parse(text) : undefined) as any,
  };
}

const startTask = (token: string, prompt: string) =>
  api("POST", API_PATHS.tasks("ws_acme"), token, { prompt });
const getTask = async (id: string, token: string = TOKENS.owner) =>
  (await api("GET", API_PATHS.task("ws_acme", id), token)).body;
const messagesOf = async (id: string, token: string = TOKENS.owner) =>
  (await api("GET", API_PATHS.messages("ws_acme", id), token)).body.messages as {
    role: string;
    kind: string;
    body: string;
  }[];

/** The admin route; a turn that has just started may not wait for its answer yet (409 turn_not_waiting). */
async function answer(taskId: string, kind: string, text: string) {
  return until(async () => {
    const response = await serve.admin(ADMIN_PATHS.taskAnswer.replace(":id", taskId), { kind, text });
    const body = (await response.json()) as { error?: string; reason?: string };
    return body.error === "turn_not_waiting" && /not yet waiting/.test(body.reason ?? "")
      ? undefined
      : { status: response.status, body };
  }, `task ${taskId}'s turn to wait for an answer`);
}

describe("baton serve --agent manual", () => {
  it("a task's turn stays running; baton admin task answer --reply ends it and GET /v1/.../tasks/:id shows the reply", async () => {
    const started = await startTask(TOKENS.owner, "fix the flaky login test");
    expect(started.status).toBe(202);
    const id = started.body.task.id as string;
    // The turn is running and nothing has answered the member.
    const running = await until(async () => {
      const task = await getTask(id);
      return task.status === "implementing" ? task : undefined;
    }, "the turn to run");
    expect(running).toMatchObject({ status: "implementing", queued: false });
    expect(await messagesOf(id)).toHaveLength(1);

    const env = { BATON_ADMIN_TOKEN: serve.adminToken };
    const cli = await until(async () => {
      const run = await runBaton(
        ["admin", "task", "answer", id, "--url", adminUrl, "--reply", "Fixed: the test waited on a timer."],
        { env },
      );
      return /not yet waiting/.test(run.stderr) ? undefined : run;
    }, "the CLI's answer");
    expect(cli.stderr).toBe("");
    expect(cli.exitCode).toBe(0);
    expect(cli.stdout).toBe(
      `${id}: the turn ended with your reply; the task is replied. Read it with GET /v1/workspaces/ws_acme/tasks/${id}/messages\n`,
    );
    // The answer returns once the turn's end is recorded: the very next read shows it.
    expect(await getTask(id)).toMatchObject({ id, status: "replied" });
    expect((await messagesOf(id)).at(-1)).toMatchObject({
      role: "agent",
      kind: "response",
      body: "Fixed: the test waited on a timer.",
    });
  });

  it("--clarify ends the turn with a question to the member; --json prints the service's answer", async () => {
    const id = (await startTask(TOKENS.owner, "rename the config")).body.task.id as string;
    const cli = await until(async () => {
      const run = await runBaton(
        ["admin", "task", "answer", id, "--url", adminUrl, "--clarify", "Which config file?", "--json"],
        { env: { BATON_ADMIN_TOKEN: serve.adminToken } },
      );
      return /not yet waiting/.test(run.stderr) ? undefined : run;
    }, "the CLI's answer");
    expect(cli.exitCode).toBe(0);
    expect(JSON.parse(cli.stdout)).toEqual({
      taskId: id,
      workspaceId: "ws_acme",
      kind: "clarify",
      status: "replied",
    });
    expect((await messagesOf(id)).at(-1)).toMatchObject({
      role: "agent",
      kind: "clarify",
      body: "Which config file?",
    });
  });

  it("fail ends the turn as failed with the operator's reason in the conversation", async () => {
    const id = (await startTask(TOKENS.owner, "upgrade the database")).body.task.id as string;
    const answered = await answer(id, "fail", "the migration needs a maintenance window");
    expect(answered).toEqual({
      status: 200,
      body: { taskId: id, workspaceId: "ws_acme", kind: "fail", status: "failed" },
    });
    expect(await getTask(id)).toMatchObject({ status: "failed" });
    expect((await messagesOf(id)).at(-1)).toMatchObject({
      role: "platform",
      kind: "error",
      body: "The turn failed: the migration needs a maintenance window. Send a follow-up to try again.",
    });
  });

  it("a member's stop ends a waiting turn; nothing is left to answer (409 turn_not_waiting)", async () => {
    const id = (await startTask(TOKENS.owner, "refactor the parser")).body.task.id as string;
    await until(async () => (await getTask(id)).status === "implementing", "the turn to run");
    const stopped = await api("POST", API_PATHS.stop("ws_acme", id), TOKENS.dev);
    expect(stopped).toMatchObject({ status: 202, body: { accepted: true } });
    await until(async () => (await getTask(id)).status === "cancelled", "the stop to end the turn");
    expect((await messagesOf(id)).at(-1)).toMatchObject({
      role: "platform",
      body: expect.stringMatching(/^Stopped by /),
    });
    expect(await answer(id, "reply", "too late")).toMatchObject({
      status: 409,
      body: { error: "turn_not_waiting", reason: expect.stringMatching(/no open turn \(status cancelled\)/) },
    });
    // A second stop: the task is not running (reference section 3, fact 4).
    expect((await api("POST", API_PATHS.stop("ws_acme", id), TOKENS.dev)).body.error).toBe("not_running");
  });

  it("six starts of one member: two run, three queue, the sixth gets 429 too_many_running (limit 5); another member's start finds the queue full", async () => {
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const started = await startTask(TOKENS.owner, `task ${i} of six`);
      expect(started.status, `start ${i}`).toBe(202);
      ids.push(started.body.task.id);
    }
    const sixth = await startTask(TOKENS.owner, "task 6 of six");
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ error: "too_many_running", limit: 5, running: 5 });
    expect(sixth.headers.get("retry-after")).toMatch(/^\d+$/);
    // Plan concurrency 2: the first two run, the next three wait in the queue.
    expect((await Promise.all(ids.map((id) => getTask(id)))).map((t) => t.queued)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    const other = await startTask(TOKENS.dev, "someone else's task");
    expect(other.status).toBe(429);
    expect(other.body.error).toBe("queue_full");
    // A queued turn waits for a slot, not for an answer.
    expect(await answer(ids[2]!, "reply", "not yet")).toMatchObject({
      status: 409,
      body: { error: "turn_not_waiting", reason: expect.stringMatching(/queued/) },
    });
    // Answering a running turn frees its slot: the first queued task runs.
    expect((await answer(ids[0]!, "reply", "done 1")).status).toBe(200);
    await until(async () => (await getTask(ids[2]!)).queued === false, "the first queued task to run");
    expect((await Promise.all(ids.map((id) => getTask(id)))).map((t) => t.queued)).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
    // One of five ended: the member may start again.
    const again = await startTask(TOKENS.owner, "task 6, once one ended");
    expect(again.status).toBe(202);
    ids.push(again.body.task.id);
    for (const id of ids.slice(1)) await api("POST", API_PATHS.stop("ws_acme", id), TOKENS.owner);
  });

  it("refusals: an unknown task is 404, an empty text or a NUL in it is 400, and the CLI needs exactly one answer", async () => {
    expect(await answer("task_nope", "reply", "x")).toMatchObject({
      status: 404,
      body: { error: "not_found" },
    });
    const empty = await serve.admin(ADMIN_PATHS.taskAnswer.replace(":id", "task_nope"), {
      kind: "reply",
      text: " ",
    });
    expect(empty.status).toBe(400);
    const nul = await serve.admin(ADMIN_PATHS.taskAnswer.replace(":id", "task_nope"), {
      kind: "reply",
      text: "a\u0000b",
    });
    expect(nul.status).toBe(400);
    expect(((await nul.json()) as { reason: string }).reason).toMatch(/NUL \(U\+0000\)/);
    const env = { BATON_ADMIN_TOKEN: serve.adminToken };
    const none = await runBaton(["admin", "task", "answer", "task_x", "--url", adminUrl], { env });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toMatch(/--reply <text>, --clarify <question> or --fail <reason>/);
    const two = await runBaton(
      ["admin", "task", "answer", "task_x", "--url", adminUrl, "--reply", "a", "--fail", "b"],
      { env },
    );
    expect(two.exitCode).toBe(1);
    expect(two.stderr).toMatch(/not --reply and --fail/);
    const unknown = await runBaton(
      ["admin", "task", "answer", "task_nope", "--url", adminUrl, "--reply", "a"],
      {
        env,
      },
    );
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/404 not_found/);
  });
});

describe("the mode is chosen by the flag", () => {
  it("a service with the scripted agent answers 409 agent_not_manual, naming --agent manual", async () => {
    const h = await createApiHarness();
    try {
      const response = await h.app.http.request(ADMIN_PATHS.taskAnswer.replace(":id", "task_any"), {
        method: "POST",
        headers: { "content-type": "application/json", [HEADERS.adminToken]: HARNESS_ADMIN_TOKEN },
        body: JSON.stringify({ kind: "reply", text: "hello" }),
      });
      expect(response.status).toBe(409);
      expect(await response.json()).toMatchObject({
        error: "agent_not_manual",
        reason: expect.stringMatching(/--agent manual/),
      });
    } finally {
      await h.close();
    }
  });

  it.each([
    [
      ["--agent", "robot"],
      /--agent must be scripted, manual, acp or a catalog agent \(claude-code, codex, gemini, opencode\)/,
    ],
    [
      ["--agent", "manual", "--agent-command", "/bin/true"],
      /--agent and --agent-command each pick the agent/,
    ],
  ])("baton serve %j exits 1 naming the fix", async (args, message) => {
    const run = await runBaton(["serve", "--db", ":memory:", ...args]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
  });
});
