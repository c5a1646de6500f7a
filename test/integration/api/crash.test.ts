// kill -9 of a real `baton serve` while turns run and while idempotent starts and follow-ups are in flight, 30
// times. A client retries every request that got no answer with the same Idempotency-Key, as the reference says.
// Afterwards, with the service left to finish: no key made two tasks or sent two messages, every accepted
// message is in its conversation and answered or refused there, and no turn is stuck queued or running.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { until } from "./harness.js";
import { createSocketClient } from "./socket-client.js";

const CYCLES = 30;
const USERS = Array.from({ length: 10 }, (_, i) => ({
  email: `crash${i}@crash.test`,
  token: `btn_crash-user-${i}-0000000000000000`,
}));
const SEED = {
  agent: { rules: [{ match: "work", delayMs: 120, reply: "worked" }, { reply: "quick" }] },
  workspaces: [
    {
      id: "ws_crash",
      name: "Crash",
      plan: { concurrency: 6, queueSize: 500 },
      members: USERS.map((u) => ({ email: u.email, role: "member", token: u.token })),
      repositories: [{ repository: "crash/app" }],
    },
  ],
};

interface Req {
  kind: "start" | "send";
  user: number;
  key: string;
  taskId?: string;
  text: string;
}

let dir: string;
let serve: ServeHandle;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-crash-"));
  await writeFile(join(dir, "seed.json"), JSON.stringify(SEED));
});
afterAll(async () => {
  await serve?.stop().catch(() => undefined);
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

describe("kill -9 during turns and idempotent starts", () => {
  it(`${CYCLES} crashes: no duplicate task, no lost message, no turn stuck running`, {
    timeout: 300_000,
  }, async () => {
    // A short lease: on PostgreSQL the turns a killed instance held are taken over once its lease runs out (on
    // SQLite at once, the store's lock saying no other instance runs). The default 30 s only made the wait longer.
    serve = await startServe({
      seed: join(dir, "seed.json"),
      dir,
      env: { BATON_SERVE_TEST_LEASE_MS: "4000" },
    });
    let client = createSocketClient(serve.url, 32);
    const accepted = new Map<string, { taskId: string; messageId: string; kind: Req["kind"] }>();
    const refused = new Set<string>();
    const taskIds: string[] = [];
    let unanswered = 0;
    const send = async (req: Req) => {
      const user = USERS[req.user]!;
      const path =
        req.kind === "start" ? API_PATHS.tasks("ws_crash") : API_PATHS.messages("ws_crash", req.taskId!);
      const body = req.kind === "start" ? { prompt: req.text } : { text: req.text };
      const answer = await client.call("POST", path, {
        token: user.token,
        body,
        headers: { "idempotency-key": req.key },
      });
      if (answer.status === 202) {
        const taskId = req.kind === "start" ? answer.body.task.id : req.taskId!;
        accepted.set(`${req.user}/${req.key}`, { taskId, messageId: answer.body.messageId, kind: req.kind });
        if (req.kind === "start" && !taskIds.includes(taskId)) taskIds.push(taskId);
        return true;
      }
      // A fresh start (never saved before the crash) may meet the 5-task limit; anything else is a failure.
      expect(answer.body.error, JSON.stringify(answer.body)).toBe("too_many_running");
      refused.add(`${req.user}/${req.key}`);
      return true;
    };

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const batch: Req[] = [];
      for (let i = 0; i < 4; i++)
        batch.push({
          kind: "start",
          user: (cycle * 4 + i) % USERS.length,
          key: `c${cycle}-s${i}`,
          text: `work ${cycle}.${i}`,
        });
      for (let i = 0; i < 4 && taskIds.length > 0; i++) {
        const taskId = taskIds[(cycle * 7 + i * 3) % taskIds.length]!;
        batch.push({
          kind: "send",
          user: (cycle + i) % USERS.length,
          key: `c${cycle}-m${i}`,
          taskId,
          text: `work more ${cycle}.${i}`,
        });
      }
      const inFlight = batch.map((req) => send(req).catch(() => false));
      await new Promise((r) => setTimeout(r, 10 + ((cycle * 37) % 140)));
      await serve.kill9();
      const settled = await Promise.all(inFlight);
      client.close();
      await serve.restart();
      client = createSocketClient(serve.url, 32);
      // The client's retries: same key, same content.
      for (const [i, ok] of settled.entries()) {
        if (ok) continue;
        unanswered += 1;
        expect(await send(batch[i]!)).toBe(true);
      }
    }
    expect(unanswered, "some requests were cut by a crash").toBeGreaterThan(0);

    const db = await serve.openStore();
    const open = async () =>
      (
        (await db.get("SELECT count(*) AS n FROM task_turns WHERE state IN ('queued', 'running')")) as {
          n: number;
        }
      ).n;
    await until(async () => (await open()) === 0 || undefined, "every turn to end", 120_000);
    client.close();
    await serve.stop();

    // No duplicate: each key of each person is one message in one task.
    for (const [id, { taskId, messageId, kind }] of accepted) {
      const userId = (
        (await db.get("SELECT id FROM users WHERE email = ?", [USERS[Number(id.split("/")[0])]!.email])) as {
          id: string;
        }
      ).id;
      const rows = (await db.all(
        "SELECT task_id, handed_over, turn_id FROM task_messages WHERE message_id = ? AND author_id = ?",
        [messageId, userId],
      )) as {
        task_id: string;
        handed_over: number;
        turn_id: string | null;
      }[];
      expect(rows, `${kind} ${id}`).toHaveLength(1);
      expect(rows[0]!.task_id).toBe(taskId);
      expect(rows[0]!.handed_over).toBe(1);
      expect(rows[0]!.turn_id, `${kind} ${id} was never answered: no turn holds it`).not.toBeNull();
      const turn = (await db.get("SELECT state, closing_entry_id FROM task_turns WHERE id = ?", [
        rows[0]!.turn_id,
      ])) as { state: string; closing_entry_id: string };
      expect(["succeeded", "failed", "cancelled", "paused", "refused"], `${id}`).toContain(turn.state);
      expect(turn.closing_entry_id).not.toBeNull();
    }
    // A refused retry had never been saved: no message carries its key.
    for (const id of refused)
      expect(
        await db.get("SELECT count(*) AS n FROM task_messages WHERE message_id = ?", [id.split("/")[1]!]),
      ).toEqual({ n: 0 });
    const tasks = ((await db.get("SELECT count(*) AS n FROM tasks")) as { n: number }).n;
    expect(tasks).toBe(
      new Set([...accepted.values()].filter((a) => a.kind === "start").map((a) => a.taskId)).size,
    );
    expect(
      await db.get(
        "SELECT count(*) AS n FROM task_messages WHERE role = 'user' AND (handed_over = 0 OR turn_id IS NULL)",
      ),
    ).toEqual({ n: 0 });
    expect(await db.get("SELECT count(*) AS n FROM task_turns WHERE state IN ('queued', 'running')")).toEqual(
      { n: 0 },
    );
    const interrupted = (await db.get(
      "SELECT count(*) AS n FROM task_turns WHERE attempts > 1 OR outcome_code = 'interrupted'",
    )) as { n: number };
    expect(interrupted.n, "some turns were running when the service was killed").toBeGreaterThan(0);
    await db.close();
  });
});
