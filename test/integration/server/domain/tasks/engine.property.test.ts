// Property tests of the task engine over a real SQLite store (in memory: the same engine, no file needed between
// runs): random sequences of starts, follow-ups, stops, turn begins and ends, billing changes, hand-overs that
// fail (the 503 path) and crashes (the runtime's memory lost, then recovery). After every step: no task has two
// open turns, no workspace runs more turns than its plan or queues more than its queue, every status change the
// store sees is a row of the README's table; at the end, once the remaining turns are run, every accepted message is answered
// or refused in its conversation and nothing accepted was lost.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findUserByEmail, type User } from "../../../../../src/server/domain/auth/users.js";
import { DomainError } from "../../../../../src/server/domain/errors.js";
import type { TaskContext } from "../../../../../src/server/domain/tasks/context.js";
import { MAX_TURN_ATTEMPTS } from "../../../../../src/server/domain/tasks/decide.js";
import {
  beginTurn,
  finishTurn,
  handOverTask,
  recover,
  type TurnFinish,
} from "../../../../../src/server/domain/tasks/engine.js";
import { sendMessage } from "../../../../../src/server/domain/tasks/send-message.js";
import { startTask } from "../../../../../src/server/domain/tasks/start-task.js";
import { STATUS_TRANSITIONS, type TaskStatus } from "../../../../../src/server/domain/tasks/statuses.js";
import { stopTaskTurn } from "../../../../../src/server/domain/tasks/stop.js";
import { applySeed, ephemeralSecretBox, SeedDocumentSchema } from "../../../../../src/server/index.js";
import type { SqliteStore } from "../../../../../src/server/store/sqlite-store.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { openSqliteStore } from "../../../../helpers/sqlite-store.js";

const WS = "ws_prop";
const EMAILS = ["a@prop.test", "b@prop.test", "c@prop.test"];

const action = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("start" as const),
      user: fc.nat(2),
      key: fc.option(fc.constantFrom("k0", "k1", "k2"), { nil: null }),
      prompt: fc.constantFrom("fix it", "add tests"),
      fail: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      task: fc.nat(20),
      user: fc.nat(2),
      key: fc.option(fc.constantFrom("m0", "m1", "k0"), { nil: null }),
      text: fc.constantFrom("more", "and docs"),
      fail: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("stop" as const), task: fc.nat(20), user: fc.nat(2) }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("begin" as const), pick: fc.nat(20) }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("finish" as const),
      pick: fc.nat(20),
      outcome: fc.constantFrom("response", "clarify", "pull_request", "error", "needs_access"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("crash" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("billing" as const), active: fc.boolean() }) },
);
type Action = typeof action extends fc.Arbitrary<infer T> ? T : never;

/** Whether the README's table has a row from `from` to `to` (`"new"` for a task being created). */
const inTable = (from: TaskStatus | "new", to: TaskStatus): boolean =>
  STATUS_TRANSITIONS.some(
    (row) =>
      row.to === to && (row.from === "new" ? from === "new" : from !== "new" && row.from.includes(from)),
  );

/**
 * Every status a task takes, as the store sees it: a trigger logs each insert and each change of `status`, so a
 * step that moves a task through several statuses (a turn ends, the waiting messages open the next) shows each
 * change, and a write that bypassed the engine's table would show too. Rolled-back writes leave no row.
 */
function logStatusChanges(
  store: SqliteStore,
): () => Promise<{ task: string; from: TaskStatus | "new"; to: TaskStatus }[]> {
  // Temporary triggers on the store's one connection: the store interface runs statements, not scripts.
  store.db.exec(`CREATE TEMP TABLE status_log (seq INTEGER PRIMARY KEY, task TEXT, from_status TEXT, to_status TEXT);
    CREATE TEMP TRIGGER status_log_insert AFTER INSERT ON main.tasks
      BEGIN INSERT INTO status_log (task, from_status, to_status) VALUES (new.id, 'new', new.status); END;
    CREATE TEMP TRIGGER status_log_update AFTER UPDATE OF status ON main.tasks WHEN old.status <> new.status
      BEGIN INSERT INTO status_log (task, from_status, to_status) VALUES (new.id, old.status, new.status); END;`);
  return async () => {
    const rows = (await store.all("SELECT task, from_status, to_status FROM status_log ORDER BY seq")) as {
      task: string;
      from_status: TaskStatus | "new";
      to_status: TaskStatus;
    }[];
    await store.run("DELETE FROM status_log");
    return rows.map((r) => ({ task: r.task, from: r.from_status, to: r.to_status }));
  };
}

async function world(plan: { concurrency: number; queueSize: number }) {
  const db = await openSqliteStore(":memory:");
  const now = new Date("2026-01-01T00:00:00.000Z");
  await applySeed(
    db,
    SeedDocumentSchema.parse({
      workspaces: [
        {
          id: WS,
          name: "Prop",
          members: EMAILS.map((email) => ({ email, role: "member" })),
          repositories: [{ repository: "acme/api" }],
        },
      ],
    }),
    now,
    ephemeralSecretBox(),
  );
  await db.run("UPDATE workspaces SET plan_concurrency = ?, plan_queue_size = ? WHERE id = ?", [
    plan.concurrency,
    plan.queueSize,
    WS,
  ]);
  const users: User[] = [];
  for (const email of EMAILS) users.push((await findUserByEmail(db, email))!);
  return { db, users };
}

async function checkInvariants(db: Store, plan: { concurrency: number; queueSize: number }): Promise<void> {
  const q = async (sql: string, ...args: (string | number)[]) =>
    (await db.all(sql, [...args])) as Record<string, unknown>[];
  // Never two open turns per task, and the task points at its open turn.
  for (const row of await q(`SELECT t.id, t.status, t.open_turn_id, o.state AS open_state,
      (SELECT count(*) FROM task_turns x WHERE x.task_id = t.id AND x.state IN ('queued','running')) AS open_count,
      (SELECT count(*) FROM task_messages m WHERE m.task_id = t.id AND m.handed_over = 0) AS unhanded
      FROM tasks t LEFT JOIN task_turns o ON o.id = t.open_turn_id`)) {
    expect(row.open_count, `task ${row.id}`).toBeLessThanOrEqual(1);
    expect(row.open_turn_id === null ? 0 : 1).toBe(row.open_count);
    if (row.open_turn_id !== null) expect(["pending", "implementing"]).toContain(row.status);
    if (row.status === "implementing") expect(row.open_state).toBe("running");
    if (row.status === "pending" && row.open_turn_id === null) expect(row.unhanded).toBeGreaterThan(0);
  }
  const counts = (
    await q(`SELECT sum(state = 'running') AS running, sum(state = 'queued') AS queued FROM task_turns`)
  )[0]!;
  expect(Number(counts.running ?? 0)).toBeLessThanOrEqual(plan.concurrency);
  // A turn interrupted by crashes runs again at most MAX_TURN_ATTEMPTS times, then fails: never stuck retrying.
  for (const row of await q(
    "SELECT id, attempts, state, outcome_code FROM task_turns WHERE attempts >= ?",
    MAX_TURN_ATTEMPTS,
  ))
    expect(row.attempts, `turn ${row.id} (${row.state}, ${row.outcome_code})`).toBe(MAX_TURN_ATTEMPTS);
  expect(Number(counts.queued ?? 0)).toBeLessThanOrEqual(plan.queueSize);
  // A message waiting for the next turn waits on a running turn.
  for (const row of await q(`SELECT m.id, o.state FROM task_messages m JOIN tasks t ON t.id = m.task_id
      LEFT JOIN task_turns o ON o.id = t.open_turn_id WHERE m.handed_over = 1 AND m.turn_id IS NULL`))
    expect(row.state, `waiting message ${row.id}`).toBe("running");
  // Every ended turn closes with one entry after all of its messages.
  for (const row of await q(`SELECT x.id, x.closing_entry_id, c.seq AS closing_seq, c.task_id AS closing_task, x.task_id,
      (SELECT max(seq) FROM task_messages m WHERE m.turn_id = x.id) AS last_message
      FROM task_turns x LEFT JOIN task_messages c ON c.id = x.closing_entry_id WHERE x.state NOT IN ('queued','running')`)) {
    expect(row.closing_seq, `turn ${row.id} has a closing entry`).not.toBeNull();
    expect(row.closing_task).toBe(row.task_id);
    if (row.last_message !== null) expect(Number(row.closing_seq)).toBeGreaterThan(Number(row.last_message));
  }
}

async function runScenario(plan: { concurrency: number; queueSize: number }, actions: readonly Action[]) {
  const { db, users } = await world(plan);
  const statusChanges = logStatusChanges(db);
  let clock = Date.parse("2026-01-01T00:00:00.000Z");
  const now = () => {
    clock += 7;
    return new Date(clock);
  };
  let failHandOver = false;
  const started = new Set<string>();
  const begun = new Map<string, number>();
  const ctx: TaskContext = {
    db,
    commit: async (work) => Promise.resolve(await db.transaction(async () => work())),
    now,
    dashboardBase: () => "http://127.0.0.1:1/dashboard",
    handOver: (database, taskId, at) => {
      if (failHandOver) throw new Error("hand-over refused by the test");
      return handOverTask(database, taskId, at);
    },
    accepting: () => true,
    runTurns: (ids) => {
      for (const id of ids) started.add(id);
    },
    abortTurn: (id) => begun.delete(id),
  };
  const accepted: { taskId: string; messageId: string }[] = [];
  const tasksByKey = new Map<string, string>();
  const taskIds = async () =>
    ((await db.all("SELECT id FROM tasks ORDER BY seq")) as { id: string }[]).map((r) => r.id);
  const runningTurns = async () =>
    (
      (await db.all("SELECT id FROM task_turns WHERE state = 'running' ORDER BY seq")) as {
        id: string;
      }[]
    ).map((r) => r.id);
  const expectRefusal = (error: unknown, codes: string[]) => {
    if (!(error instanceof DomainError) || !codes.includes(error.code)) throw error;
  };

  for (const step of actions) {
    switch (step.kind) {
      case "start": {
        failHandOver = step.fail;
        try {
          const answer = await startTask(ctx, {
            workspaceId: WS,
            user: users[step.user]!,
            body: { prompt: step.prompt },
            idempotencyKey: step.key,
          });
          accepted.push({ taskId: answer.task.id, messageId: answer.messageId });
          if (step.key) {
            const id = `${step.user}/${step.key}`;
            expect(tasksByKey.get(id) ?? answer.task.id, "one key, one task").toBe(answer.task.id);
            tasksByKey.set(id, answer.task.id);
          }
        } catch (error) {
          expectRefusal(error, [
            "too_many_running",
            "queue_full",
            "billing_inactive",
            "idempotency_conflict",
            "unavailable",
          ]);
          if (error instanceof DomainError && error.code === "unavailable") {
            accepted.push({ taskId: error.details.taskId!, messageId: error.details.messageId! });
            if (step.key) tasksByKey.set(`${step.user}/${step.key}`, error.details.taskId!);
          }
        }
        failHandOver = false;
        break;
      }
      case "send": {
        const taskId = (await taskIds())[step.task % Math.max(1, (await taskIds()).length)];
        if (!taskId) break;
        failHandOver = step.fail;
        try {
          const answer = await sendMessage(ctx, {
            workspaceId: WS,
            taskId,
            user: users[step.user]!,
            body: { text: step.text },
            idempotencyKey: step.key,
          });
          accepted.push({ taskId, messageId: answer.messageId });
        } catch (error) {
          expectRefusal(error, ["idempotency_conflict", "unavailable"]);
          if (error instanceof DomainError && error.code === "unavailable")
            accepted.push({ taskId, messageId: error.details.messageId! });
        }
        failHandOver = false;
        break;
      }
      case "stop": {
        const taskId = (await taskIds())[step.task % Math.max(1, (await taskIds()).length)];
        if (!taskId) break;
        try {
          await stopTaskTurn(ctx, WS, taskId, users[step.user]!);
        } catch (error) {
          expectRefusal(error, ["not_running"]);
        }
        break;
      }
      case "begin": {
        const candidates = (await runningTurns()).filter((id) => !begun.has(id));
        const turnId = candidates[step.pick % Math.max(1, candidates.length)];
        if (!turnId) break;
        const result = await db.transaction(async () => beginTurn(db, turnId, now()));
        if (result.kind === "run") begun.set(turnId, result.attempt);
        break;
      }
      case "finish": {
        const candidates = [...begun.keys()];
        const turnId = candidates[step.pick % Math.max(1, candidates.length)];
        if (!turnId) break;
        const attempt = begun.get(turnId)!;
        begun.delete(turnId);
        const finish: TurnFinish =
          step.outcome === "error"
            ? { kind: "error", code: "agent_failed", reason: "boom" }
            : step.outcome === "needs_access"
              ? { kind: "needs_access", reason: "registry" }
              : {
                  kind: "reply",
                  reply: { kind: step.outcome === "clarify" ? "clarify" : "response", body: "ok" },
                  files: [],
                  pullRequest:
                    step.outcome === "pull_request"
                      ? {
                          repo: "acme/api",
                          number: 1,
                          url: "file:///x#pull/1",
                          branch: `b-${turnId}`,
                          merged: false,
                        }
                      : null,
                };
        await db.transaction(async () => finishTurn(db, turnId, attempt, finish, now()));
        break;
      }
      case "crash":
        begun.clear();
        await db.transaction(async () => recover(db, now()));
        break;
      case "billing":
        await db.run("UPDATE workspaces SET billing_state = ? WHERE id = ?", [
          step.active ? "active" : "inactive",
          WS,
        ]);
        break;
    }
    await checkInvariants(db, plan);
    for (const change of await statusChanges())
      expect(inTable(change.from, change.to), `${change.task}: ${change.from} -> ${change.to}`).toBe(true);
  }

  // Drain: a restart hands over what was saved, then every remaining turn runs to a reply.
  await db.run("UPDATE workspaces SET billing_state = 'active' WHERE id = ?", [WS]);
  begun.clear();
  await db.transaction(async () => recover(db, now()));
  for (let guard = 0; guard < 500 && (await runningTurns()).length > 0; guard++) {
    for (const turnId of await runningTurns()) {
      const result = await db.transaction(async () => beginTurn(db, turnId, now()));
      if (result.kind === "run")
        await db.transaction(async () =>
          finishTurn(
            db,
            turnId,
            result.attempt,
            { kind: "reply", reply: { kind: "response", body: "done" }, files: [], pullRequest: null },
            now(),
          ),
        );
    }
    await checkInvariants(db, plan);
  }
  for (const change of await statusChanges())
    expect(inTable(change.from, change.to), `${change.task}: ${change.from} -> ${change.to}`).toBe(true);
  expect(await runningTurns()).toEqual([]);
  expect(await db.get("SELECT count(*) AS n FROM task_turns WHERE state = 'queued'")).toEqual({
    n: 0,
  });
  // Every accepted message is in its conversation, handed over, and answered or refused by an ended turn.
  for (const { taskId, messageId } of accepted) {
    const rows = (await db.all(
      `SELECT m.handed_over, x.state, x.closing_entry_id FROM task_messages m LEFT JOIN task_turns x ON x.id = m.turn_id
       WHERE m.task_id = ? AND m.message_id = ?`,
      [taskId, messageId],
    )) as {
      handed_over: number;
      state: string | null;
      closing_entry_id: string | null;
    }[];
    expect(rows.length, `message ${messageId} of ${taskId}`).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.handed_over).toBe(1);
      expect(["succeeded", "failed", "cancelled", "paused", "refused"]).toContain(row.state);
      expect(row.closing_entry_id).not.toBeNull();
    }
  }
  await db.close();
}

/** A turn begun and interrupted by a crash again and again: random runs rarely repeat it often enough. */
const crashLoop: Action[] = [
  { kind: "start", user: 0, key: null, prompt: "fix it", fail: false },
  ...Array.from({ length: MAX_TURN_ATTEMPTS + 1 }, (): Action[] => [
    { kind: "begin", pick: 0 },
    { kind: "crash" },
  ]).flat(),
  { kind: "begin", pick: 0 },
  { kind: "finish", pick: 0, outcome: "response" },
];

describe("task engine properties", () => {
  it("one open turn per task, the plan's slots and queue, the status table, every accepted message answered, a turn interrupted three times failed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({ concurrency: fc.integer({ min: 1, max: 3 }), queueSize: fc.integer({ min: 0, max: 3 }) }),
        fc.array(action, { minLength: 1, maxLength: 60 }),
        (plan, actions) => runScenario(plan, actions),
      ),
      { numRuns: 150, examples: [[{ concurrency: 1, queueSize: 1 }, crashLoop]] },
    );
  });
});
