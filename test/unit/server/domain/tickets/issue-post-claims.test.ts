// Issue 26: the outbox of replies posted back to issues is worked once across instances, on both engines: posts
// are claimed in their messages' order, a held post is skipped by other instances until its lease runs out, and
// only the holder (the new one after a takeover) records the outcome.
import { beforeEach, describe, expect, it } from "vitest";
import {
  anyPostClaimable,
  claimDuePost,
  finishPost,
  queueIssuePost,
} from "../../../../../src/server/domain/tasks/issue-post-queue.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import type { SqlValue } from "../../../../../src/server/store/store.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const T0 = 1_800_000_000_000;
const LEASE = 30_000;
// Entry ids in the reverse of their messages' order, so claiming by id would show.
const ENTRIES = ["agt_c", "agt_b", "agt_a"];

describe.each(ENGINES)("issue reply claims on the $name engine", (engine) => {
  const db = useEngine(engine);
  beforeEach(async () => {
    await migrateStore(db.store);
    const at = new Date(T0).toISOString();
    const run = (sql: string, params: SqlValue[] = []) => db.store.run(sql, params);
    await run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'Acme', ?)", [at]);
    await run("INSERT INTO users (id, email, name, created_at) VALUES ('u', 'olive@acme.test', 'Olive', ?)", [
      at,
    ]);
    await run(
      `INSERT INTO tasks (id, workspace_id, source, status, created_by, created_at, last_activity_at, last_activity_ms,
         ticket_id) VALUES ('tsk', 'ws', 'tracker_issue', 'running', 'u', ?, ?, ?, 'ISS-1')`,
      [at, at, T0],
    );
    for (const id of ENTRIES) {
      await run(
        "INSERT INTO task_messages (id, task_id, role, kind, body, created_at) VALUES (?, 'tsk', 'agent', 'response', ?, ?)",
        [id, `reply ${id}`, at],
      );
      await queueIssuePost(db.store, "tsk", id);
    }
  });

  it("posts are claimed in their messages' order, and a held one by no other instance until its lease has run out", async () => {
    const a = [];
    for (let i = 0; i < ENTRIES.length; i++)
      a.push(await claimDuePost(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 }));
    expect(a).toEqual(ENTRIES);
    expect(await anyPostClaimable(db.another(), T0 + LEASE)).toBe(false);
    expect(
      await claimDuePost(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE }),
    ).toBeUndefined();
    expect(await anyPostClaimable(db.another(), T0 + LEASE + 1)).toBe(true);
    expect(await claimDuePost(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE + 1 })).toBe(
      "agt_c",
    );
  });

  it("after a takeover the dead holder's late outcome is refused and the new holder's recorded", async () => {
    const entryId = (await claimDuePost(db.store, { owner: "A", leaseMs: LEASE, nowMs: T0 }))!;
    await claimDuePost(db.another(), { owner: "B", leaseMs: LEASE, nowMs: T0 + LEASE + 1 });
    expect(await finishPost(db.store, { entryId, owner: "A" }, { state: "posted", attempts: 1 })).toBe(false);
    expect(await finishPost(db.another(), { entryId, owner: "B" }, { state: "posted", attempts: 1 })).toBe(
      true,
    );
    expect(
      await db.store.get("SELECT state, claimed_by FROM issue_posts WHERE entry_id = ?", [entryId]),
    ).toEqual({
      state: "posted",
      claimed_by: null,
    });
  });
});
