// Claims, renewals and takeovers of running work on both engines (issue 26: "an operation, turn … claimed by an
// instance that dies is taken over after the lease expires"). Operations: the drain's claim step, called as two
// instances would with clocks passed in (a lease's end is a time, not a wait). Turns: a started service (the
// manual agent keeps its turn running) against a second instance whose clock is past the lease.
import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { createManualAgent } from "../../../src/server/adapters/agents/manual.js";
import { createServerApp, type ServerApp } from "../../../src/server/app.js";
import {
  claimHead,
  MAX_ATTEMPTS,
  stillHolds,
} from "../../../src/server/domain/operations/claim-operation.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import { beginTurn, finishTurn, takeOverTurn } from "../../../src/server/domain/tasks/engine.js";
import { migrateStore } from "../../../src/server/store/migrate.js";
import {
  engagementsToDrain,
  insertOperation,
  type OperationRow,
} from "../../../src/server/store/operations.js";
import type { Store } from "../../../src/server/store/store.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, CreateSandboxResponseSchema, HEADERS } from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { ENGINES } from "../../helpers/postgres.js";
import { API_SEED, TOKENS } from "../api/harness.js";

const ADMIN = "test-admin-token-leases-0123456789";
const LEASE_MS = 60_000;
const X = "machine-x/aaaaaaaaaaaa";
const Y = "machine-y/bbbbbbbbbbbb";

describe.each(ENGINES)("leases on the $name engine", (engine) => {
  let store: Store;
  let other: Store;
  let app: ServerApp;
  let tearDown: () => Promise<void>;

  beforeEach(async () => {
    const set = await engine.setUp();
    store = set.store;
    other = set.another();
    tearDown = set.tearDown;
    await migrateStore(store);
    const seed = SeedDocumentSchema.parse(JSON.parse(readFileSync(API_SEED, "utf8")));
    await applySeed(store, seed, new Date(), ephemeralSecretBox());
    app = createServerApp({
      db: store,
      instance: { id: X, machine: "machine-x" },
      lease: { leaseMs: LEASE_MS },
      logger: createLogger({}),
      adminToken: ADMIN,
      secretBox: ephemeralSecretBox(),
      tasks: { agent: createManualAgent() },
    });
  });
  afterEach(async () => {
    await app.stop();
    await tearDown();
  });

  /** Two operations queued in one engagement, oldest first (rows as a request inserts them). */
  async function queueTwo(): Promise<[OperationRow, OperationRow]> {
    const made = await app.http.request(ADMIN_PATHS.sandboxes, {
      method: "POST",
      headers: { "content-type": "application/json", [HEADERS.adminToken]: ADMIN },
      body: JSON.stringify({ workspaceId: "ws_acme", engagementId: "eng_leases" }),
    });
    expect(made.status).toBe(201);
    const sandbox = CreateSandboxResponseSchema.parse(await made.json());
    const turn = await store.get<{ id: string }>("SELECT id FROM turns WHERE engagement_id = ?", [
      sandbox.engagementId,
    ]);
    const repo = await store.get<{ id: string }>("SELECT id FROM repositories WHERE slug = 'acme/api'");
    const rows = [];
    for (const id of ["op_first", "op_second"])
      rows.push(
        await store.transaction(async () =>
          insertOperation(
            store,
            {
              id,
              kind: "env.activate",
              workspace_id: "ws_acme",
              engagement_id: sandbox.engagementId,
              sandbox_id: sandbox.sandboxId,
              turn_id: turn!.id,
              repository_id: repo!.id,
              repository: "acme/api",
            },
            new Date(),
          ),
        ),
      );
    return rows as [OperationRow, OperationRow];
  }

  const claim = (db: Store, engagementId: string, owner: string, atMs: number) =>
    claimHead(db, engagementId, { owner, leaseMs: LEASE_MS, now: () => new Date(atMs), onIdle: () => {} });

  it("an operation claimed by one instance is left to it while its lease holds, then taken over as a second attempt", async () => {
    const [first] = await queueTwo();
    const t0 = Date.now();
    const byX = await claim(store, first.engagement_id, X, t0);
    expect(byX).toMatchObject({ kind: "claimed", takenOverFrom: null, op: { id: "op_first", attempts: 1 } });
    expect(await engagementsToDrain(other, t0 + LEASE_MS)).toEqual([]);
    // Not the second operation either: only the engagement's oldest open one is ever taken (arrival order).
    expect(await claim(other, first.engagement_id, Y, t0 + LEASE_MS)).toEqual({ kind: "busy" });
    expect(await engagementsToDrain(other, t0 + LEASE_MS + 1)).toEqual([first.engagement_id]);
    const byY = await claim(other, first.engagement_id, Y, t0 + LEASE_MS + 1);
    expect(byY).toMatchObject({ kind: "claimed", takenOverFrom: X, op: { id: "op_first", attempts: 2 } });
    // X's outcome is no longer its to commit; Y's is.
    expect(await store.transaction(async () => stillHolds(store, first, X))).toBeUndefined();
    expect(await other.transaction(async () => stillHolds(other, first, Y))).toMatchObject({ claimed_by: Y });
  });

  it(`an operation whose instance died ${MAX_ATTEMPTS} times fails \`interrupted\`, and the next one is taken`, async () => {
    const [first] = await queueTwo();
    let at = Date.now();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      expect(await claim(store, first.engagement_id, `dead-${attempt}`, at)).toMatchObject({
        kind: "claimed",
      });
      at += LEASE_MS + 1;
    }
    expect(await claim(other, first.engagement_id, Y, at)).toMatchObject({
      kind: "ended",
      op: { id: "op_first" },
    });
    expect(
      await store.get("SELECT state, error_code, claimed_by FROM operations WHERE id = 'op_first'"),
    ).toEqual({ state: "failed", error_code: "interrupted", claimed_by: null });
    expect(await claim(other, first.engagement_id, Y, at)).toMatchObject({
      kind: "claimed",
      op: { id: "op_second", attempts: 1 },
    });
  });

  it("a running turn is held by the instance that began it; another takes it over once the lease ran out, and the first one's result is dropped", async () => {
    await app.start();
    const started = await app.http.request(API_PATHS.tasks("ws_acme"), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.owner}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "wait for an answer" }),
    });
    expect(started.status).toBe(202);
    const { task } = (await started.json()) as { task: { id: string } };
    const turn = await pollUntil(
      () =>
        store.get<{ id: string; attempts: number; claimed_by: string | null }>(
          "SELECT id, attempts, claimed_by FROM task_turns WHERE task_id = ?",
          [task.id],
        ),
      (row) => row?.claimed_by === X,
      { timeoutMs: 10_000 },
    );
    expect(turn).toMatchObject({ attempts: 1, claimed_by: X });
    const t0 = Date.now();
    const begin = (at: number) =>
      other.transaction(async () =>
        beginTurn(other, turn!.id, new Date(at), undefined, { owner: Y, leaseMs: LEASE_MS }),
      );
    expect(await other.transaction(async () => takeOverTurn(other, turn!.id, Y, new Date(t0)))).toEqual([]);
    expect(await begin(t0)).toEqual({ kind: "gone" });
    const later = t0 + 2 * LEASE_MS;
    expect(await other.transaction(async () => takeOverTurn(other, turn!.id, Y, new Date(later)))).toEqual([
      turn!.id,
    ]);
    expect(await begin(later)).toMatchObject({ kind: "run", attempt: 2 });
    const stale = await store.transaction(async () =>
      finishTurn(store, turn!.id, 1, { kind: "error", code: "x", reason: "late" }, new Date()),
    );
    expect(stale).toEqual({ stale: true, started: [] });
    expect(await store.get("SELECT state, claimed_by FROM task_turns WHERE id = ?", [turn!.id])).toEqual({
      state: "running",
      claimed_by: Y,
    });
  });
});
