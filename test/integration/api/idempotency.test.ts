// Reference section 4 "Idempotency" and the 503 `unavailable` rules of task start and message send, through
// app.request(). The hand-over is swapped for one that fails on demand: a store failure between saving a request
// and handing it over cannot be produced at will with a real SQLite file, and the 503 path is exactly that.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { handOverTask } from "../../../src/server/domain/tasks/engine.js";
import { createServerApp } from "../../../src/server/index.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, waitForStatus } from "./harness.js";

let h: ApiHarness;
const fault = { handOver: false };
beforeAll(async () => {
  h = await createApiHarness({
    tasks: {
      handOver: (db, taskId, now) => {
        if (fault.handOver) throw new Error("hand-over refused by the test");
        return handOverTask(db, taskId, now);
      },
    },
  });
});
afterAll(async () => {
  await h.close();
});

const count = async (sql: string, ...args: string[]) => ((await h.db.get(sql, [...args])) as { n: number }).n;
const startWith = (token: string, key: string | undefined, body: unknown) =>
  h.call("POST", API_PATHS.tasks("ws_acme"), {
    token,
    body,
    headers: key === undefined ? {} : { "idempotency-key": key },
  });
const sendWith = (token: string, taskId: string, key: string | undefined, text: string) =>
  h.call("POST", API_PATHS.messages("ws_acme", taskId), {
    token,
    body: { text },
    headers: key === undefined ? {} : { "idempotency-key": key },
  });

describe("Idempotency-Key", () => {
  it.each([
    ["empty", ""],
    ["129 characters", "k".repeat(129)],
    ["a space", "my key"],
    ["a tab", "my\tkey"],
    ["non-ASCII", "clé"],
    ["DEL (0x7F)", "key\x7f"],
  ])(
    "1 to 128 printable ASCII characters (0x21 to 0x7E), no spaces; invalid gives 400 invalid_idempotency_key (%s)",
    async (_case, key) => {
      const token = await freshToken(h);
      const started = await startWith(token, key, { prompt: "x" });
      expect(started.status).toBe(400);
      expect(started.body.error).toBe("invalid_idempotency_key");
    },
  );

  it.each([
    ["one character", "k"],
    ["128 characters", "K".repeat(128)],
    ["every printable kind", "!~a-Z_0.9:/+=%"],
  ])("a valid key: %s", async (_case, key) => {
    const answer = await startWith(await freshToken(h), key, { prompt: "valid key" });
    expect(answer.status).toBe(202);
    expect(answer.body.messageId).toBe(key);
    await waitForStatus(h, answer.body.task.id, ["replied"]);
  });

  it("a repeated start with the same key returns the first request's result and does the work once", async () => {
    const token = await freshToken(h);
    const first = await startWith(token, "start-once", {
      prompt: "only once",
      repo: "acme/api",
      title: "Once",
    });
    const again = await startWith(token, "start-once", {
      prompt: "only once",
      repo: "acme/api",
      title: "Once",
    });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await count("SELECT count(*) AS n FROM tasks WHERE title = 'Once'")).toBe(1);
    await waitForStatus(h, first.body.task.id, ["replied"]);
    expect(
      await count(
        "SELECT count(*) AS n FROM task_messages WHERE task_id = ? AND role = 'agent'",
        first.body.task.id,
      ),
    ).toBe(1);
  });

  it.each([
    ["a different prompt", { prompt: "other" }],
    ["a different repository", { prompt: "same", repo: "acme/web" }],
    ["a different title", { prompt: "same", title: "Other title" }],
  ])("the same key with %s gives 409 idempotency_conflict", async (_case, body) => {
    const token = await freshToken(h);
    const first = await startWith(token, "conflict-key", { prompt: "same" });
    expect(first.status).toBe(202);
    const second = await startWith(token, "conflict-key", body);
    expect(second.status).toBe(409);
    expect(second.body.error).toBe("idempotency_conflict");
    await waitForStatus(h, first.body.task.id, ["replied"]);
    await h.db.run("DELETE FROM api_idempotency WHERE idempotency_key = 'conflict-key'");
  });

  it("keys belong to their sender: two people using one key start two tasks", async () => {
    const a = await startWith(await freshToken(h, "dev@acme.test"), "shared-key", { prompt: "shared" });
    const b = await startWith(await freshToken(h, "owner@acme.test"), "shared-key", { prompt: "shared" });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(a.body.task.id).not.toBe(b.body.task.id);
    await waitForStatus(h, a.body.task.id, ["replied"]);
    await waitForStatus(h, b.body.task.id, ["replied"]);
  });

  it("keys belong to their sender: two people using one key on one task send two messages", async () => {
    const dev = await freshToken(h, "dev@acme.test");
    const owner = await freshToken(h, "owner@acme.test");
    const task = await startWith(await dev, undefined, { prompt: "for two senders" });
    await waitForStatus(h, task.body.task.id, ["replied"]);
    const a = await sendWith(await dev, task.body.task.id, "shared-msg-key", "same words");
    const b = await sendWith(owner, task.body.task.id, "shared-msg-key", "same words");
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    await waitForStatus(h, task.body.task.id, ["replied"]);
    const page = await h.call("GET", API_PATHS.messages("ws_acme", task.body.task.id), { token: dev });
    const mine = page.body.messages.filter((m: { role: string }) => m.role === "user");
    expect(mine.map((m: { body: string }) => m.body)).toEqual([
      "for two senders",
      "same words",
      "same words",
    ]);
    expect(mine.slice(1).map((m: { messageId: string }) => m.messageId)).toEqual([
      "shared-msg-key",
      "shared-msg-key",
    ]);
    expect(new Set(page.body.messages.map((m: { id: string }) => m.id)).size).toBe(page.body.messages.length);
  });

  it("a key belongs to its person, not to the token: another token of the same person replays it", async () => {
    const first = await startWith(await freshToken(h, "owner@acme.test"), "person-key", {
      prompt: "by person",
    });
    const second = await startWith(await freshToken(h, "owner@acme.test"), "person-key", {
      prompt: "by person",
    });
    expect(second.body).toEqual(first.body);
    await waitForStatus(h, first.body.task.id, ["replied"]);
  });

  it("a message: same key same text sends once and answers the first messageId (the key); different text: 409", async () => {
    const token = await freshToken(h);
    const task = await startWith(token, undefined, { prompt: "for follow-ups" });
    await waitForStatus(h, task.body.task.id, ["replied"]);
    const first = await sendWith(token, task.body.task.id, "msg-key-1", "and the docs");
    const again = await sendWith(token, task.body.task.id, "msg-key-1", "and the docs");
    expect(first).toMatchObject({ status: 202, body: { messageId: "msg-key-1" } });
    expect(again).toMatchObject({ status: 202, body: { messageId: "msg-key-1" } });
    expect(
      await count(
        "SELECT count(*) AS n FROM task_messages WHERE task_id = ? AND message_id = 'msg-key-1'",
        task.body.task.id,
      ),
    ).toBe(1);
    const conflict = await sendWith(token, task.body.task.id, "msg-key-1", "something else");
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe("idempotency_conflict");
    // The same key on another route is other content too.
    expect((await startWith(token, "msg-key-1", { prompt: "and the docs" })).body.error).toBe(
      "idempotency_conflict",
    );
    await waitForStatus(h, task.body.task.id, ["replied"]);
  });

  it("a retry with the same key of a start that already created its task is never refused (billing, queue)", async () => {
    const token = await freshToken(h);
    const first = await startWith(token, "never-refused", { prompt: "before billing stopped" });
    await waitForStatus(h, first.body.task.id, ["replied"]);
    await h.db.run("UPDATE workspaces SET billing_state = 'inactive' WHERE id = 'ws_acme'");
    try {
      const retry = await startWith(token, "never-refused", { prompt: "before billing stopped" });
      expect(retry.status).toBe(202);
      expect(retry.body).toEqual(first.body);
      expect((await startWith(token, "new-key", { prompt: "new" })).body.error).toBe("billing_inactive");
    } finally {
      await h.db.run("UPDATE workspaces SET billing_state = 'active' WHERE id = 'ws_acme'");
    }
  });

  it("a retry with the same key of a start that already created its task is never refused (running-task limit, full queue)", async () => {
    const token = await freshToken(h);
    const firsts = [];
    // "slow" turns hold their slot: 2 run, 3 wait in the queue (plan team), and the person has 5 open tasks.
    for (let i = 0; i < 5; i++) {
      const answer = await startWith(token, `held-${i}`, { prompt: `slow ${i}` });
      expect(answer.status).toBe(202);
      firsts.push(answer);
    }
    try {
      expect((await startWith(token, "held-new", { prompt: "slow new" })).body.error).toBe(
        "too_many_running",
      );
      expect(
        (await startWith(await freshToken(h, "owner@acme.test"), "held-other", { prompt: "slow other" })).body
          .error,
      ).toBe("queue_full");
      for (const [i, first] of firsts.entries()) {
        const retry = await startWith(token, `held-${i}`, { prompt: `slow ${i}` });
        expect(retry.status).toBe(202);
        expect(retry.body).toEqual(first.body);
      }
    } finally {
      for (const first of firsts)
        await h.call("POST", API_PATHS.stop("ws_acme", first.body.task.id), { token: await freshToken(h) });
    }
  });

  it.each([
    ["empty", ""],
    ["129 characters", "k".repeat(129)],
    ["a space", "my key"],
  ])(
    "a message's key: 1 to 128 printable ASCII characters, no spaces; invalid gives 400 invalid_idempotency_key (%s)",
    async (_case, key) => {
      const token = await freshToken(h);
      const task = await startWith(token, undefined, { prompt: "for a bad key" });
      await waitForStatus(h, task.body.task.id, ["replied"]);
      const sent = await sendWith(token, task.body.task.id, key, "hello");
      expect(sent.status).toBe(400);
      expect(sent.body.error).toBe("invalid_idempotency_key");
      expect(
        await count(
          "SELECT count(*) AS n FROM task_messages WHERE task_id = ? AND role = 'user'",
          task.body.task.id,
        ),
      ).toBe(1);
    },
  );

  it("saved but not handed over: 503 unavailable with taskId and messageId; a retry with the same key hands it over once", async () => {
    const token = await freshToken(h);
    fault.handOver = true;
    const failed = await startWith(token, "five-oh-three", { prompt: "handed over later" });
    fault.handOver = false;
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({
      error: "unavailable",
      taskId: expect.stringMatching(/^task_/),
      messageId: "five-oh-three",
    });
    const taskId = failed.body.taskId;
    expect(await count("SELECT count(*) AS n FROM task_turns WHERE task_id = ?", taskId)).toBe(0);
    const retry = await startWith(token, "five-oh-three", { prompt: "handed over later" });
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ task: { id: taskId }, messageId: "five-oh-three" });
    await waitForStatus(h, taskId, ["replied"]);
    const again = await startWith(token, "five-oh-three", { prompt: "handed over later" });
    expect(again.body).toEqual(retry.body);
    expect(await count("SELECT count(*) AS n FROM task_turns WHERE task_id = ?", taskId)).toBe(1);
    expect(await count("SELECT count(*) AS n FROM tasks WHERE id = ?", taskId)).toBe(1);
  });

  it("or the client sends a message on that task, which sends the prompt first", async () => {
    const token = await freshToken(h);
    fault.handOver = true;
    const failed = await startWith(await token, "prompt-first", { prompt: "the first prompt" });
    fault.handOver = false;
    expect(failed.status).toBe(503);
    const sent = await sendWith(await token, failed.body.taskId, "then-this", "then this");
    expect(sent).toMatchObject({ status: 202, body: { messageId: "then-this" } });
    await waitForStatus(h, failed.body.taskId, ["replied"]);
    const conversation = await h.call("GET", API_PATHS.messages("ws_acme", failed.body.taskId), { token });
    const users = conversation.body.messages
      .filter((m: { role: string }) => m.role === "user")
      .map((m: { body: string }) => m.body);
    expect(users).toEqual(["the first prompt", "then this"]);
  });

  it("a message saved but not handed over: 503 with messageId; retry using that messageId as the Idempotency-Key", async () => {
    const token = await freshToken(h);
    const task = await startWith(token, undefined, { prompt: "message 503" });
    await waitForStatus(h, task.body.task.id, ["replied"]);
    fault.handOver = true;
    const failed = await sendWith(token, task.body.task.id, undefined, "lost in hand-over?");
    fault.handOver = false;
    expect(failed.status).toBe(503);
    expect(failed.body).toMatchObject({ error: "unavailable", messageId: expect.stringMatching(/^msg_/) });
    expect(failed.body.taskId).toBeUndefined();
    const retry = await sendWith(token, task.body.task.id, failed.body.messageId, "lost in hand-over?");
    expect(retry).toMatchObject({ status: 202, body: { messageId: failed.body.messageId } });
    await waitForStatus(h, task.body.task.id, ["replied"]);
    expect(
      await count(
        "SELECT count(*) AS n FROM task_messages WHERE task_id = ? AND role = 'user'",
        task.body.task.id,
      ),
    ).toBe(2);
  });

  it("a start that arrives while the service stops is saved and answered 503 unavailable; the next start of the service hands it over, and a retry with the key gets the task", async () => {
    const stopping = await createApiHarness();
    const second = createServerApp({
      db: stopping.db,
      logger: createLogger({}),
      secretBox: stopping.secretBox,
      capability: { serviceUrl: "http://127.0.0.1:9" },
      tasks: { workRoot: join(stopping.dir, "work-2") },
    });
    try {
      await stopping.app.deps.tasks.runtime.stop();
      const token = await freshToken(stopping);
      const body = { prompt: "arrives during shutdown" };
      const saved = await stopping.call("POST", API_PATHS.tasks("ws_acme"), {
        token,
        body,
        headers: { "idempotency-key": "during-stop" },
      });
      expect(saved.status).toBe(503);
      expect(saved.body).toMatchObject({ error: "unavailable", messageId: "during-stop" });
      // The service starts again over the same store.
      await second.start();
      await waitForStatus(stopping, saved.body.taskId, ["replied"]);
      const retry = await second.http.request(API_PATHS.tasks("ws_acme"), {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "idempotency-key": "during-stop",
        },
        body: JSON.stringify(body),
      });
      expect(retry.status).toBe(202);
      expect(((await retry.json()) as { task: { id: string } }).task.id).toBe(saved.body.taskId);
      expect(
        (
          (await stopping.db.get("SELECT count(*) AS n FROM tasks WHERE title = ?", [body.prompt])) as {
            n: number;
          }
        ).n,
      ).toBe(1);
    } finally {
      await second.stop();
      await stopping.close();
    }
  });

  it("50 simultaneous starts with one key make one task; every answer is the first", async () => {
    const token = await freshToken(h);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => startWith(token, "fifty", { prompt: "fifty at once" })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(await count("SELECT count(*) AS n FROM tasks WHERE title = 'fifty at once'")).toBe(1);
    await waitForStatus(h, answers[0]!.body.task.id, ["replied"]);
  });
});
