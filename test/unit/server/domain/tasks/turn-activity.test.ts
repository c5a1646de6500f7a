// The turn's activity in the store, on both engines (issue 34, point 4): written in the transaction that ends the
// turn for every kind of result, one row per turn in the turns' order, never an entry of the conversation; a
// stale result (the turn rerun elsewhere) writes nothing, a turn a member stopped keeps what the agent did before.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ActivityRecord } from "../../../../../src/server/adapters/agents/port.js";
import { findUserByEmail, type User } from "../../../../../src/server/domain/auth/users.js";
import type { TaskContext } from "../../../../../src/server/domain/tasks/context.js";
import {
  beginTurn,
  finishTurn,
  handOverTask,
  type TurnFinish,
} from "../../../../../src/server/domain/tasks/engine.js";
import { listActivity } from "../../../../../src/server/domain/tasks/read-activity.js";
import { sendMessage } from "../../../../../src/server/domain/tasks/send-message.js";
import { startTask } from "../../../../../src/server/domain/tasks/start-task.js";
import { stopTaskTurn } from "../../../../../src/server/domain/tasks/stop.js";
import { applySeed, ephemeralSecretBox, SeedDocumentSchema } from "../../../../../src/server/index.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { ENGINES } from "../../../../helpers/postgres.js";

const WS = "ws_act";
const MARK = "activity-text-never-in-the-conversation";

const records = (label: string): ActivityRecord[] => [
  {
    at: "2026-11-28T10:00:00.000Z",
    kind: "tool_call",
    data: { toolCallId: `${label}-1`, title: `Read README.md ${MARK}`, kind: "read", status: "pending" },
  },
  {
    at: "2026-11-28T10:00:01.000Z",
    kind: "plan",
    data: { entries: [{ content: "edit", status: "pending" }] },
  },
  { at: "2026-11-28T10:00:02.000Z", kind: "agent_message_chunk", data: { text: `Done ${label}` } },
];

describe.each(ENGINES)("a turn's activity in the store on the $name engine", (engine) => {
  let db: Store;
  let tearDown: () => Promise<void>;
  let ctx: TaskContext;
  let user: User;
  let started: string[];
  let clock: number;

  beforeEach(async () => {
    ({ store: db, tearDown } = await engine.setUp());
    await migrateStore(db);
    await applySeed(
      db,
      SeedDocumentSchema.parse({
        workspaces: [{ id: WS, name: "Act", members: [{ email: "a@act.test", role: "member" }] }],
      }),
      new Date("2026-11-28T09:00:00.000Z"),
      ephemeralSecretBox(),
    );
    user = (await findUserByEmail(db, "a@act.test"))!;
    started = [];
    clock = Date.parse("2026-11-28T10:00:00.000Z");
    ctx = {
      db,
      commit: (work) => db.transaction(async () => work()),
      now: () => {
        clock += 1000;
        return new Date(clock);
      },
      dashboardBase: () => "http://127.0.0.1:1/dashboard",
      handOver: handOverTask,
      accepting: () => true,
      runTurns: (ids) => started.push(...ids),
      abortTurn: () => {},
    };
  });
  afterEach(() => tearDown());

  async function newTask(): Promise<string> {
    const answer = await startTask(ctx, {
      workspaceId: WS,
      user,
      body: { prompt: "fix it" },
      idempotencyKey: null,
    });
    return answer.task.id;
  }

  /** Begins the last started turn and ends it with `finish`; returns the turn's id. */
  async function runTurn(finish: TurnFinish, beforeEnd?: () => Promise<void>): Promise<string> {
    const turnId = started.at(-1)!;
    const begun = await db.transaction(() => beginTurn(db, turnId, ctx.now()));
    if (begun.kind !== "run") throw new Error(`turn ${turnId} did not begin: ${begun.kind}`);
    await beforeEnd?.();
    await db.transaction(() => finishTurn(db, turnId, begun.attempt, finish, ctx.now()));
    return turnId;
  }

  const follow = async (taskId: string, text: string) =>
    sendMessage(ctx, { workspaceId: WS, taskId, user, body: { text }, idempotencyKey: null });

  it("every kind of result keeps its activity, one row per turn, in the turns' order, numbered from 1", async () => {
    const taskId = await newTask();
    const first = await runTurn({
      kind: "reply",
      reply: { kind: "response", body: "done" },
      files: [],
      pullRequest: null,
      activity: records("reply"),
    });
    await follow(taskId, "again");
    const second = await runTurn({
      kind: "error",
      code: "agent_failed",
      reason: "boom",
      activity: records("error"),
    });
    await follow(taskId, "and again");
    const third = await runTurn({ kind: "needs_access", reason: "a key", activity: records("access") });

    const page = await listActivity(ctx, WS, taskId, {});
    expect(page.next).toBeNull();
    expect(page.turns.map((t) => [t.turnId, t.number, t.state, t.dropped])).toEqual([
      [first, 1, "succeeded", 0],
      [second, 2, "failed", 0],
      [third, 3, "paused", 0],
    ]);
    expect(page.turns[1]!.records).toEqual(records("error"));
    expect(page.turns[0]!.endedAt).not.toBeNull();
  });

  it("the activity is never an entry of the conversation", async () => {
    const taskId = await newTask();
    await runTurn({
      kind: "reply",
      reply: { kind: "response", body: "done" },
      files: [],
      pullRequest: null,
      activity: records("r"),
    });
    const bodies = await db.all<{ body: string }>("SELECT body FROM task_messages WHERE task_id = ?", [
      taskId,
    ]);
    expect(bodies.map((b) => b.body)).toEqual(["fix it", "done"]);
    expect(JSON.stringify(bodies)).not.toContain(MARK);
  });

  it("a turn without activity (the scripted agent's) keeps no row", async () => {
    const taskId = await newTask();
    await runTurn({ kind: "reply", reply: { kind: "response", body: "ok" }, files: [], pullRequest: null });
    expect((await listActivity(ctx, WS, taskId, {})).turns).toEqual([]);
    expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM task_turn_activity")).toEqual({ n: 0 });
  });

  it("a turn a member stopped keeps what the agent did before the stop, and its stop notice stays the closing entry", async () => {
    const taskId = await newTask();
    const turnId = await runTurn(
      { kind: "error", code: "stopped", reason: "stopped", activity: records("s") },
      () => stopTaskTurn(ctx, WS, taskId, user).then(() => undefined),
    );
    const page = await listActivity(ctx, WS, taskId, {});
    expect(page.turns.map((t) => [t.turnId, t.state])).toEqual([[turnId, "cancelled"]]);
    const entries = await db.all<{ role: string; body: string }>(
      "SELECT role, body FROM task_messages WHERE task_id = ? ORDER BY seq",
      [taskId],
    );
    expect(entries.map((e) => e.role)).toEqual(["user", "platform"]);
  });

  it("a stale result (another attempt holds the turn) keeps nothing", async () => {
    await newTask();
    const turnId = started.at(-1)!;
    const begun = await db.transaction(() => beginTurn(db, turnId, ctx.now()));
    if (begun.kind !== "run") throw new Error("did not begin");
    const ended = await db.transaction(() =>
      finishTurn(
        db,
        turnId,
        begun.attempt + 1,
        { kind: "error", code: "x", reason: "y", activity: records("z") },
        ctx.now(),
      ),
    );
    expect(ended.stale).toBe(true);
    expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM task_turn_activity")).toEqual({ n: 0 });
  });

  it("pages by turn: limit, then after the last turnId; an unknown after is invalid_cursor", async () => {
    const taskId = await newTask();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      if (i > 0) await follow(taskId, `more ${i}`);
      ids.push(
        await runTurn({
          kind: "reply",
          reply: { kind: "response", body: `r${i}` },
          files: [],
          pullRequest: null,
          activity: records(`p${i}`),
        }),
      );
    }
    const one = await listActivity(ctx, WS, taskId, { limit: "2" });
    expect(one.turns.map((t) => t.turnId)).toEqual(ids.slice(0, 2));
    expect(one.next).toBe(ids[1]);
    const two = await listActivity(ctx, WS, taskId, { after: one.next, limit: "2" });
    expect(two.turns.map((t) => t.turnId)).toEqual(ids.slice(2));
    expect(two.next).toBeNull();
    await expect(listActivity(ctx, WS, taskId, { after: "turn_nope" })).rejects.toMatchObject({
      code: "invalid_cursor",
    });
    await expect(listActivity(ctx, WS, taskId, { limit: "21" })).rejects.toMatchObject({
      code: "invalid_limit",
    });
    await expect(listActivity(ctx, "ws_other", taskId, {})).rejects.toMatchObject({ code: "not_found" });
  });
});
