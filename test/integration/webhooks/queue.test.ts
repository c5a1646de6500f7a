// The delivery queue is durable and retried: a delivery answered before the worker ran survives a restart, a
// port that fails is retried with backoff then recorded `failed`, and done rows are pruned after the dedup window.
import { afterEach, describe, expect, it } from "vitest";
import { createLocalTracker } from "../../../src/server/adapters/tracker/local.js";
import type { Tracker } from "../../../src/server/adapters/tracker/port.js";
import {
  DEDUP_WINDOW_MS,
  enqueueDelivery,
  pruneDoneDeliveries,
} from "../../../src/server/surfaces/webhooks/deliveries.js";
import { MAX_ATTEMPTS } from "../../../src/server/surfaces/webhooks/worker.js";
import { until } from "../api/harness.js";
import {
  appliedRow,
  createWebhookHarness,
  deliveryRow,
  fixture,
  freshTracker,
  newDeliveryId,
  taskOfTicket,
  type WebhookHarness,
} from "./harness.js";

let h: WebhookHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a crash after the answer loses nothing: the delivery is committed before 202", () => {
  it("delivered while no worker runs, then a new app on the same store starts the task", async () => {
    h = await createWebhookHarness({ start: false });
    const payload = fixture("codehost", "issues-labeled");
    const deliveryId = newDeliveryId();
    expect((await h.deliver("codehost", "issues", payload, { deliveryId })).status).toBe(202);
    expect(await deliveryRow(h.db, deliveryId)).toMatchObject({ state: "queued", attempts: 0 });
    expect(await taskOfTicket(h.db, String(payload.issue.id))).toBeUndefined();
    await h.restart({ start: true });
    await until(
      async () => (await deliveryRow(h!.db, deliveryId))?.state === "done",
      "the recovered delivery to be applied",
    );
    expect(await taskOfTicket(h.db, String(payload.issue.id))).toMatchObject({ source: "codehost_issue" });
  });
});

describe("applying is idempotent: a crash mid-apply re-runs the delivery", () => {
  it("a start re-run finds the task it started: one task, no 'already has a task' comment", async () => {
    h = await createWebhookHarness();
    const payload = fixture("codehost", "issues-labeled");
    payload.issue.body = "slow work";
    const deliveryId = newDeliveryId();
    await h.deliver("codehost", "issues", payload, { deliveryId });
    await until(
      async () => (await deliveryRow(h!.db, deliveryId))?.state === "done",
      "the first application",
    );
    const first = (await deliveryRow(h.db, deliveryId))!.outcome;
    // As if the service died after applying but before recording the outcome: the row is still queued.
    await h.db.run("UPDATE webhook_deliveries SET state = 'queued' WHERE delivery_id = ?", [deliveryId]);
    await h.restart();
    await until(async () => (await deliveryRow(h!.db, deliveryId))?.state === "done", "the re-run");
    expect((await deliveryRow(h.db, deliveryId))!.outcome).toBe(first);
    expect(
      await h.db.get("SELECT count(*) AS n FROM tasks WHERE ticket_id = ?", [String(payload.issue.id)]),
    ).toEqual({
      n: 1,
    });
    expect(
      (await h.comments("codehost", "acme/api#21")).filter((c) => c.includes("already has a task")),
    ).toEqual([]);
  });
});

/**
 * The local tracker over the harness's store, but posting a comment fails the first `failures` times (a tracker
 * that is down). It is made on first use, once the harness's store exists.
 */
function flakyTracker(failures: number): Tracker {
  let calls = 0;
  let local: Tracker | undefined;
  const inner = () => {
    local ??= createLocalTracker({ db: h!.db });
    return local;
  };
  return {
    kind: "flaky",
    searchIssues: (input) => inner().searchIssues(input),
    findIssue: (input) => inner().findIssue(input),
    claimIssue: (input) => inner().claimIssue(input),
    async postComment(input) {
      if (++calls <= failures) throw new Error("tracker unavailable (503)");
      return inner().postComment(input);
    },
  };
}

describe("a port that fails is retried with backoff, then the delivery is recorded failed", () => {
  it.each([
    [2, "done", 3],
    [99, "failed", MAX_ATTEMPTS],
  ])(
    "postComment failing %s times: the delivery ends %s after %s attempts",
    async (failures, state, attempts) => {
      const tracker = flakyTracker(failures);
      h = await createWebhookHarness({ tasks: { tracker } });
      // A refusal is said on the issue: the actor is not a member, so the only port call is the refusal comment.
      const payload = freshTracker("issue-update-labeled");
      payload.actor.id = "stranger-t";
      const deliveryId = newDeliveryId();
      expect((await h.deliver("tracker", "Issue", payload, { deliveryId })).status).toBe(202);
      const row = await until(() => appliedRow(h!.db, deliveryId), "the delivery to end", 30_000);
      expect(row).toMatchObject({ state, attempts });
      if (state === "failed") expect(row.outcome).toMatch(/tracker unavailable \(503\)/);
      else expect(await h.comments("tracker", payload.data.id)).toHaveLength(1);
    },
  );
});

describe("done deliveries are pruned after the 7-day dedup window", () => {
  it("a done row older than 7 days goes; a newer one and a failed one stay", async () => {
    h = await createWebhookHarness({ start: false });
    const now = Date.now();
    const db = h.db;
    await enqueueDelivery(
      db,
      { source: "codehost", deliveryId: "old", event: "issues", payload: "{}" },
      now - DEDUP_WINDOW_MS - 1,
    );
    await enqueueDelivery(
      db,
      { source: "codehost", deliveryId: "new", event: "issues", payload: "{}" },
      now - DEDUP_WINDOW_MS + 60_000,
    );
    await enqueueDelivery(
      db,
      { source: "codehost", deliveryId: "failed", event: "issues", payload: "{}" },
      now - DEDUP_WINDOW_MS - 1,
    );
    await db.run("UPDATE webhook_deliveries SET state = 'done' WHERE delivery_id IN ('old', 'new')");
    await db.run("UPDATE webhook_deliveries SET state = 'failed' WHERE delivery_id = 'failed'");
    expect(await pruneDoneDeliveries(db, now)).toBe(1);
    expect(await deliveryRow(db, "old")).toBeUndefined();
    expect(await deliveryRow(db, "new")).toBeDefined();
    expect(await deliveryRow(db, "failed")).toBeDefined();
  });
});

describe("the issue-reply outbox retries a failed post", () => {
  it("the tracker refusing twice: the reply is posted on the third attempt, with its marker, once", async () => {
    h = await createWebhookHarness({ tasks: { tracker: flakyTracker(2) } });
    const payload = freshTracker("issue-update-labeled");
    await h.deliver("tracker", "Issue", payload);
    const posted = await until(
      async () =>
        (await h!.db.get("SELECT entry_id, attempts FROM issue_posts WHERE state = 'posted'")) as
          | { entry_id: string; attempts: number }
          | undefined,
      "the reply to be posted",
    );
    expect(posted.attempts).toBe(3);
    expect(await h.comments("tracker", payload.data.id)).toEqual([
      expect.stringMatching(new RegExp(`^Done: [^]*\\n\\n<!-- baton:${posted.entry_id} -->$`)),
    ]);
  });
});
