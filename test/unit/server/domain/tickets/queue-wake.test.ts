// Issue 36, point 5: "the reply outbox and the webhook worker are woken by the store's notification instead of
// polling". Each worker runs as one instance on `db.store` with its fallback poll set to ten minutes; the work is
// queued by another instance's commit (`db.another()`: a second connection on PostgreSQL, where the wake-up is a
// NOTIFY; the same store on SQLite, whose notifications stay in the process). Only the notification can get the
// work done within the test's deadline. The code host is a recording stub: what is checked is that the worker
// woke and posted, not how a comment reaches GitHub (the codehost suites cover that).
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Codehost } from "../../../../../src/server/adapters/codehost/port.js";
import type { Tracker } from "../../../../../src/server/adapters/tracker/port.js";
import { queueIssuePost } from "../../../../../src/server/domain/tasks/issue-post-queue.js";
import { IssueReplyWorker } from "../../../../../src/server/domain/tickets/issue-replies.js";
import { migrateStore } from "../../../../../src/server/store/migrate.js";
import type { SqlValue } from "../../../../../src/server/store/store.js";
import { enqueueDelivery } from "../../../../../src/server/surfaces/webhooks/deliveries.js";
import { WebhookWorker } from "../../../../../src/server/surfaces/webhooks/worker.js";
import { pollUntil } from "../../../../helpers/poll.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

/** Far past the deadline below: a worker that only polls never gets to the work in time. */
const POLL_MS = 10 * 60_000;
const DEADLINE_MS = 10_000;
const logger = pino({ level: "silent" });

describe.each(ENGINES)("queues woken by the store's notification on the $name engine", (engine) => {
  const db = useEngine(engine);
  const stops: (() => Promise<void>)[] = [];
  beforeEach(async () => {
    await migrateStore(db.store);
    const at = new Date().toISOString();
    const run = (sql: string, params: SqlValue[] = []) => db.store.run(sql, params);
    await run("INSERT INTO workspaces (id, name, created_at) VALUES ('ws', 'Acme', ?)", [at]);
    await run("INSERT INTO users (id, email, name, created_at) VALUES ('u', 'olive@acme.test', 'Olive', ?)", [
      at,
    ]);
    await run(
      `INSERT INTO tasks (id, workspace_id, source, status, created_by, created_at, last_activity_at, last_activity_ms,
         ticket_id, repo, ticket_number) VALUES ('tsk', 'ws', 'codehost_issue', 'running', 'u', ?, ?, ?, 'gh-7', 'acme/api', 7)`,
      [at, at, Date.now()],
    );
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it("an issue reply queued by another instance's commit is posted at once, though the outbox polls every 10 minutes", async () => {
    const posted: string[] = [];
    const codehost = {
      postComment: async ({ body }: { body: string }) => {
        posted.push(body);
      },
    } as unknown as Codehost;
    const worker = new IssueReplyWorker({
      db: db.store,
      now: () => new Date(),
      logger,
      commit: (work) => db.store.transaction(work),
      codehost,
      tracker: {} as Tracker,
      owner: "instance-a",
      pollMs: POLL_MS,
    });
    worker.start();
    stops.push(() => worker.stop());
    const other = db.another();
    await other.transaction(async () => {
      await other.run(
        "INSERT INTO task_messages (id, task_id, role, kind, body, created_at) VALUES ('agt_1', 'tsk', 'agent', 'response', 'Fixed.', ?)",
        [new Date().toISOString()],
      );
      await queueIssuePost(other, "tsk", "agt_1");
    });
    const state = await pollUntil(
      async () =>
        (await db.store.get<{ state: string }>("SELECT state FROM issue_posts WHERE entry_id = 'agt_1'"))
          ?.state,
      (value) => value === "posted",
      { timeoutMs: DEADLINE_MS },
    );
    expect({ state, posted: posted.length }).toEqual({ state: "posted", posted: 1 });
  });

  it("a webhook delivery queued by another instance's commit is applied at once, though the worker polls every 10 minutes", async () => {
    const applied: string[] = [];
    const worker = new WebhookWorker({
      db: db.store,
      now: () => new Date(),
      logger,
      commit: (work) => db.store.transaction(work),
      apply: async (delivery) => {
        applied.push(delivery.deliveryId);
        return "applied";
      },
      owner: "instance-a",
      pollMs: POLL_MS,
    });
    worker.start();
    stops.push(() => worker.stop());
    const other = db.another();
    await other.transaction(() =>
      enqueueDelivery(
        other,
        { source: "codehost", deliveryId: "gh-1", event: "ping", payload: "{}" },
        Date.now(),
      ),
    );
    const done = await pollUntil(
      () => Promise.resolve([...applied]),
      (list) => list.length > 0,
      { timeoutMs: DEADLINE_MS },
    );
    expect(done).toEqual(["gh-1"]);
  });
});
