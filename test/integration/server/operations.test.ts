// The operations transport through the real handler and a real SQLite file, without a socket.

import { afterEach, describe, expect, it } from "vitest";
import { OverlaySchema } from "../../../src/envfile/overlay.js";
import {
  ADMIN_PATHS,
  HEADERS,
  MAX_WAIT_MS,
  ManagedStartupSchema,
  type Operation,
  OperationSchema,
  PATHS,
  SECRET_PLACEHOLDER_PATTERN,
  StartOperationAnswerSchema,
} from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { CANARIES, createHarness, type Harness, opsHeaders } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("POST /ops/v1/operations", () => {
  it("an idle engagement's activation runs in the request: the 202 carries the succeeded operation", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const response = await harness.start(creds, "acme/api");
    expect(response.status).toBe(202);
    const done = OperationSchema.parse(await response.json());
    expect(done).toMatchObject({ state: "succeeded", kind: "env.activate", repository: "acme/api" });
    // What the POST answered is what a later read says: it was committed before the answer.
    expect(await (await harness.get(creds, done.id)).json()).toEqual(done);
    expect(done.result?.overlayRevision).toBe(1);
    expect(done.result?.requestId).toBeNull();
    expect(done.result?.variables).toEqual([
      { repository: "acme/api", name: "API_BASE_URL", assigned: "API_BASE_URL", source: "sandbox.env" },
      { repository: "acme/api", name: "LOG_LEVEL", assigned: "LOG_LEVEL", source: "sandbox.env" },
      { repository: "acme/api", name: "DATABASE_PASSWORD", assigned: "DATABASE_PASSWORD", source: "secret" },
    ]);
    expect(ManagedStartupSchema.parse(done.result?.managedStartup)).toMatchObject({
      state: "available",
      owner: "agent",
      versionId: "env-api-1",
      dockerfileStatus: "not_applied",
      startupScriptPath: "scripts/start.sh",
      runPath: "~/.baton/runner/baton-runner.cjs",
      evidencePath: "~/.baton/evidence/acme__api.json",
      disclosure: null,
    });
  });

  it("a succeeded answer carries the overlay GET .../overlay returns, so the client needs no second request", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const answer = StartOperationAnswerSchema.parse(
      await (await harness.start(creds, "acme/api", "k1")).json(),
    );
    expect(answer.state).toBe("succeeded");
    const fetched = await harness.request("GET", PATHS.operationOverlay(answer.id), {
      headers: opsHeaders(creds),
    });
    expect(answer.overlay).toEqual(OverlaySchema.parse(await fetched.json()));
    expect(answer.overlay?.revision).toBe(answer.result?.overlayRevision);
    // A replay of the same key answers the operation as it is now, with its overlay.
    const replay = StartOperationAnswerSchema.parse(
      await (await harness.start(creds, "acme/api", "k1")).json(),
    );
    expect(replay).toEqual(answer);
    // Placeholders only: no secret value in the answer.
    for (const canary of CANARIES) expect(JSON.stringify(answer)).not.toContain(canary);
  });

  it("an answer that is not succeeded carries no overlay", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    // A variable no shell can name fails the activation in the request (invalid_configuration).
    await harness.db.run(
      "INSERT INTO sandbox_env (repository_id, name, value) VALUES ('repo_web', 'BAD-NAME', 'x')",
    );
    const failed = await (await harness.start(creds, "acme/web")).json();
    expect(failed).toMatchObject({ state: "failed", error: { code: "invalid_configuration" } });
    expect(failed).not.toHaveProperty("overlay");
    // Behind an open operation of the engagement the answer is pending.
    const turn = (await harness.db.get("SELECT id FROM turns WHERE engagement_id = 'eng-1'")) as {
      id: string;
    };
    const at = new Date().toISOString();
    await harness.db.run(
      `INSERT INTO operations (id, kind, workspace_id, engagement_id, sandbox_id, turn_id, repository_id,
           repository, state, created_at, updated_at)
         VALUES ('op_ahead', 'env.activate', 'ws_acme', 'eng-1', ?, ?, 'repo_api', 'acme/api', 'pending', ?, ?)`,
      [creds.sandboxId, turn.id, at, at],
    );
    const pending = await (await harness.start(creds, "acme/api")).json();
    expect(pending).toMatchObject({ state: "pending" });
    expect(pending).not.toHaveProperty("overlay");
  });

  it("behind an open operation of the same engagement the POST answers pending; both run in arrival order", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    // An operation still open from before (e.g. accepted just before the service stopped, not yet picked up).
    const turn = (await harness.db.get("SELECT id FROM turns WHERE engagement_id = 'eng-1'")) as {
      id: string;
    };
    const at = new Date().toISOString();
    await harness.db.run(
      `INSERT INTO operations (id, kind, workspace_id, engagement_id, sandbox_id, turn_id, repository_id,
           repository, state, created_at, updated_at)
         VALUES ('op_older', 'env.activate', 'ws_acme', 'eng-1', ?, ?, 'repo_web', 'acme/web', 'pending', ?, ?)`,
      [creds.sandboxId, turn.id, at, at],
    );
    const created = OperationSchema.parse(await (await harness.start(creds, "acme/api")).json());
    expect(created).toMatchObject({ state: "pending", result: null });
    const done = await harness.settle(creds, created.id);
    const older = await harness.settle(creds, "op_older");
    expect(older.result?.overlayRevision).toBe(1);
    expect(done.result?.overlayRevision).toBe(2);
  });

  it("an activation that throws in its request is answered pending and fails `internal` in the worker, once", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    // A stored readiness document that no longer parses makes the activation throw, in the request and in the
    // worker alike (not a refusal the activation records itself).
    await harness.db.run(
      "UPDATE environment_versions SET readiness_json = '{' WHERE repository_id = 'repo_api'",
    );
    const response = await harness.start(creds, "acme/api", "throws-1");
    expect(response.status).toBe(202);
    const pending = OperationSchema.parse(await response.json());
    // The request's transaction rolled back whole and started the operation again without running it.
    expect(pending.state).toBe("pending");
    const done = await harness.settle(creds, pending.id);
    expect(done.state).toBe("failed");
    expect(done.error?.code).toBe("internal");
    const rows = await harness.db.all("SELECT id FROM operations WHERE engagement_id = 'eng-1'");
    expect(rows).toEqual([{ id: pending.id }]);
    // Nothing of the rolled-back attempt is left: no overlay revision, no ledger row.
    expect(
      await harness.db.all("SELECT revision FROM overlay_revisions WHERE engagement_id = 'eng-1'"),
    ).toEqual([]);
  });

  it("a repeated Idempotency-Key returns the first operation and does the work once", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const first = (await (await harness.start(creds, "acme/api", "same-key")).json()) as Operation;
    const again = (await (await harness.start(creds, "acme/api", "same-key")).json()) as Operation;
    expect(again.id).toBe(first.id);
    const count = (await harness.db.get("SELECT COUNT(*) AS n FROM operations")) as { n: number };
    expect(count.n).toBe(1);
  });

  it("the same key with other content is 409 idempotency_conflict", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    await harness.start(creds, "acme/api", "k");
    const response = await harness.start(creds, "acme/web", "k");
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: "idempotency_conflict" });
  });

  it.each([
    ["missing", undefined],
    ["empty", ""],
    ["with a space", "a b"],
    ["129 characters", "x".repeat(129)],
  ])("an Idempotency-Key %s is 400 invalid_idempotency_key", async (_label, key) => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const response = await harness.request("POST", PATHS.operations, {
      headers: { ...opsHeaders(creds), ...(key === undefined ? {} : { [HEADERS.idempotencyKey]: key }) },
      body: { kind: "env.activate", repository: "acme/api" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_idempotency_key" });
  });

  it("a body that is not an activation request is 400 invalid_request naming the field", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const response = await harness.request("POST", PATHS.operations, {
      headers: { ...opsHeaders(creds), [HEADERS.idempotencyKey]: "k" },
      body: { kind: "env.activate", repository: "not a slug" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "invalid_request",
      reason: expect.stringContaining("repository"),
    });
  });

  it("a disconnected repository is 400 invalid_repo; an unknown one is 404", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    expect((await harness.start(creds, "acme/nope")).status).toBe(404);
    await harness.admin(ADMIN_PATHS.disconnectRepository, { workspaceId: "ws_acme", repository: "acme/web" });
    const response = await harness.start(creds, "acme/web");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: "invalid_repo" });
  });
});

describe("GET /ops/v1/operations/:id", () => {
  it("long-polls: ?waitMs= returns as soon as the state differs from the one at request time", async () => {
    harness = await createHarness({ activationDelayMs: 300 });
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    let before = ((await (await harness.get(creds, created.id)).json()) as Operation).state;
    const seen = [before];
    while (before !== "succeeded") {
      const started = Date.now();
      const op = (await (await harness.get(creds, created.id, 20_000)).json()) as Operation;
      expect(op.state).not.toBe(before);
      expect(Date.now() - started).toBeLessThan(10_000);
      before = op.state;
      seen.push(op.state);
    }
    expect(seen.at(-1)).toBe("succeeded");
    expect(seen.slice(0, -1).every((state) => state === "pending" || state === "running")).toBe(true);
  });

  it("without waitMs answers at once; a finished operation answers at once even with waitMs", async () => {
    harness = await createHarness({ activationDelayMs: 2000 });
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    const now = (await (await harness.get(creds, created.id)).json()) as Operation;
    expect(["pending", "running"]).toContain(now.state);
    const done = await harness.settle(creds, created.id);
    const started = Date.now();
    const again = (await (await harness.get(creds, created.id, MAX_WAIT_MS)).json()) as Operation;
    expect(again).toEqual(done);
    expect(Date.now() - started).toBeLessThan(MAX_WAIT_MS);
  });

  it.each(["-1", "soon", "1.5"])("waitMs=%s is 400 invalid_request", async (value) => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    const response = await harness.request("GET", `${PATHS.operation(created.id)}?waitMs=${value}`, {
      headers: opsHeaders(creds),
    });
    expect(response.status).toBe(400);
  });
});

describe("GET /ops/v1/operations/:id/overlay", () => {
  it("returns the overlay document with secrets as placeholders, to the owning sandbox only", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const op = await harness.settle(
      creds,
      ((await (await harness.start(creds, "acme/api")).json()) as Operation).id,
    );
    const response = await harness.request("GET", PATHS.operationOverlay(op.id), {
      headers: opsHeaders(creds),
    });
    expect(response.status).toBe(200);
    const overlay = OverlaySchema.parse(await response.json());
    const secret = overlay.repositories[0]!.variables.find((v) => v.source === "secret")!;
    expect(secret.value).toMatch(new RegExp(`^${SECRET_PLACEHOLDER_PATTERN.source}$`));

    // A revived sandbox of the same engagement can read the operation but not take its overlay.
    const revived = await harness.sandbox("ws_acme", "eng-1");
    expect((await harness.get(revived, op.id)).status).toBe(200);
    const refused = await harness.request("GET", PATHS.operationOverlay(op.id), {
      headers: opsHeaders(revived),
    });
    expect(refused.status).toBe(404);
  });

  it("is 409 operation_not_succeeded before the operation succeeds", async () => {
    harness = await createHarness({ activationDelayMs: 1000 });
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    const response = await harness.request("GET", PATHS.operationOverlay(created.id), {
      headers: opsHeaders(creds),
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ error: "operation_not_succeeded" });
  });
});

describe("rollout gate and credentials", () => {
  it("a workspace without the rollout gets 403 {error: rollout_disabled, reason}", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_legacy", "eng-legacy");
    const response = await harness.start(creds, "legacy/app");
    expect(response.status).toBe(403);
    const body = (await response.json()) as { error: string; reason: string };
    expect(body.error).toBe("rollout_disabled");
    expect(body.reason.length).toBeGreaterThan(10);
  });

  it("an operation of another workspace is 404, exactly like one that does not exist", async () => {
    harness = await createHarness();
    const mine = await harness.sandbox("ws_acme", "eng-a");
    const op = (await (await harness.start(mine, "acme/api")).json()) as Operation;
    const other = await harness.sandbox("ws_acme", "eng-b");
    const foreign = await harness.get(other, op.id);
    const missing = await harness.get(other, "op_doesnotexist");
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const strip = (body: unknown) => ({ ...(body as Record<string, unknown>), requestId: undefined });
    expect(strip(await foreign.json())).toEqual(strip(await missing.json()));
  });

  it("a repository of another workspace is 404, never a hint that it exists", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const response = await harness.start(creds, "legacy/app");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "not_found" });
  });

  it.each([
    ["no credentials", {}],
    [
      "an unknown turn token",
      { [HEADERS.authorization]: "Bearer btt_unknown", [HEADERS.sandboxLease]: "btl_unknown" },
    ],
    [
      "a malformed authorization header",
      { [HEADERS.authorization]: "Token abc", [HEADERS.sandboxLease]: "x" },
    ],
  ])("%s is 401 invalid_token", async (_label, headers) => {
    harness = await createHarness();
    const response = await harness.request("GET", PATHS.operation("op_x"), { headers });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "invalid_token" });
  });

  it("a turn token of one engagement with the lease of another is 401", async () => {
    harness = await createHarness();
    const a = await harness.sandbox("ws_acme", "eng-a");
    const b = await harness.sandbox("ws_acme", "eng-b");
    const response = await harness.start({ ...a, lease: b.lease }, "acme/api");
    expect(response.status).toBe(401);
  });

  it("an expired turn token or lease is 401 invalid_token", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1", { turn: 60, lease: 3600 });
    harness.clock.offsetMs = 61_000;
    expect((await harness.start(creds, "acme/api")).status).toBe(401);
    const fresh = await harness.sandbox("ws_acme", "eng-2", { turn: 7200, lease: 60 });
    harness.clock.offsetMs = 61_000 + 61_000;
    expect((await harness.start(fresh, "acme/api")).status).toBe(401);
  });
});

describe("expiry fails an operation terminally", () => {
  it("a lease that expires while the activation runs fails it with lease_expired (checked before commit)", async () => {
    harness = await createHarness({ activationDelayMs: 400 });
    const creds = await harness.sandbox("ws_acme", "eng-1", { lease: 60, turn: 7200 });
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    await waitForRow(harness, created.id, ["running"]);
    harness.clock.offsetMs = 120_000; // the lease is now past its expiry; the turn is not
    // The caller's own lease has expired too, so read the row directly: the route would (rightly) say 401.
    await waitForRow(harness, created.id);
    const row = await harness.db.get("SELECT state, error_code, error_reason FROM operations WHERE id = ?", [
      created.id,
    ]);
    expect(row).toMatchObject({ state: "failed", error_code: "lease_expired" });
    const ledger = (await harness.db.get("SELECT COUNT(*) AS n FROM ledger_entries")) as { n: number };
    expect(ledger.n).toBe(0);
  });

  it("expired credentials may still read their own operation's terminal state, and nothing else", async () => {
    harness = await createHarness({ activationDelayMs: 400 });
    const creds = await harness.sandbox("ws_acme", "eng-1", { lease: 60, turn: 7200 });
    const created = (await (await harness.start(creds, "acme/api")).json()) as Operation;
    await waitForRow(harness, created.id, ["running"]);
    harness.clock.offsetMs = 120_000;
    await waitForRow(harness, created.id);
    const seen = await harness.request("GET", PATHS.operation(created.id), { headers: opsHeaders(creds) });
    expect(seen.status).toBe(200);
    expect(await seen.json()).toMatchObject({ state: "failed", error: { code: "lease_expired" } });
    // Starting work or fetching an overlay with the expired lease stays refused.
    expect((await harness.start(creds, "acme/web")).status).toBe(401);
    const overlay = await harness.request("GET", PATHS.operationOverlay(created.id), {
      headers: opsHeaders(creds),
    });
    expect(overlay.status).toBe(401);
    // Another engagement's operation stays invisible to expired credentials too.
    const other = await harness.sandbox("ws_acme", "eng-2", { lease: 60, turn: 7200 });
    const notMine = await harness.request("GET", PATHS.operation(created.id), { headers: opsHeaders(other) });
    expect(notMine.status).toBe(404);
  });

  it("a turn that expired while the operation waited in the queue fails it with turn_expired at pickup", async () => {
    harness = await createHarness({ activationDelayMs: 500 });
    const longTurn = await harness.sandbox("ws_acme", "eng-1", { turn: 7200, lease: 7200 });
    const first = (await (await harness.start(longTurn, "acme/api")).json()) as Operation;
    // A second turn token of the same engagement, due to expire in 60 s, queues behind the first operation.
    const turn = (await (
      await harness.admin(ADMIN_PATHS.turns, { engagementId: "eng-1", ttlSeconds: 60 })
    ).json()) as {
      turnToken: string;
    };
    const shortTurn = { ...longTurn, turnToken: turn.turnToken };
    const second = (await (await harness.start(shortTurn, "acme/web")).json()) as Operation;
    harness.clock.offsetMs = 120_000;
    expect((await harness.settle(longTurn, first.id)).state).toBe("succeeded");
    const failed = await harness.settle(longTurn, second.id);
    expect(failed.state).toBe("failed");
    expect(failed.error).toMatchObject({ code: "turn_expired" });
    expect(failed.error?.reason).toContain("turn");
  });
});

describe("serial activations and the naming ledger", () => {
  it("ten concurrent activations in one engagement run one at a time and leave a consistent ledger", async () => {
    harness = await createHarness({ activationDelayMs: 20 });
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const repos = ["acme/api", "acme/web"];
    const created = await Promise.all(
      Array.from(
        { length: 10 },
        async (_, i) => (await (await harness!.start(creds, repos[i % 2]!)).json()) as Operation,
      ),
    );
    // Sample the store while they run: never more than one `running` operation in the engagement.
    let mostRunning = 0;
    // Samples run one after another, and the last one ends before the test does (the store closes after it).
    let sampling = Promise.resolve();
    const sampler = setInterval(() => {
      sampling = sampling.then(async () => {
        const row = (await harness!.db.get(
          "SELECT COUNT(*) AS n FROM operations WHERE state = 'running'",
        )) as { n: number };
        mostRunning = Math.max(mostRunning, row.n);
      });
    }, 2);
    const done = await Promise.all(created.map((op) => harness!.settle(creds, op.id)));
    clearInterval(sampler);
    await sampling;
    expect(mostRunning).toBe(1);
    expect(done.every((op) => op.state === "succeeded")).toBe(true);
    // Arrival order: every revision 1..10 exactly once, committed in the order the operations were accepted.
    expect(done.map((op) => op.result!.overlayRevision).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    const rows = (await harness.db.all("SELECT overlay_revision, seq FROM operations ORDER BY seq")) as {
      overlay_revision: number;
      seq: number;
    }[];
    expect(rows.map((r) => r.overlay_revision)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const ledger = await harness.db.all(
      "SELECT repository, variable, assigned, status FROM ledger_entries ORDER BY position",
    );
    // Whichever repository committed first keeps the unqualified API_BASE_URL; the other is qualified.
    const firstRepo = (
      (await harness.db.get("SELECT repository FROM operations ORDER BY seq LIMIT 1")) as {
        repository: string;
      }
    ).repository;
    const laterRepo = repos.find((r) => r !== firstRepo)!;
    const qualifier = laterRepo === "acme/web" ? "WEB" : "API";
    const firstVars =
      firstRepo === "acme/api"
        ? ["API_BASE_URL", "DATABASE_PASSWORD", "LOG_LEVEL"]
        : ["API_BASE_URL", "STRIPE_KEY"];
    const laterVars =
      laterRepo === "acme/api"
        ? ["API_BASE_URL", "DATABASE_PASSWORD", "LOG_LEVEL"]
        : ["API_BASE_URL", "STRIPE_KEY"];
    expect(ledger).toEqual([
      ...firstVars.map((v) => ({ repository: firstRepo, variable: v, assigned: v, status: "live" })),
      ...laterVars.map((v) => ({
        repository: laterRepo,
        variable: v,
        assigned: v === "API_BASE_URL" ? `REPO_${qualifier}__${v}` : v,
        status: "live",
      })),
    ]);
  });

  it("names are sticky across follow-up turns and revival; a disconnected repository's names stay reserved", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    await harness.settle(creds, ((await (await harness.start(creds, "acme/web")).json()) as Operation).id);
    const api = await harness.settle(
      creds,
      ((await (await harness.start(creds, "acme/api")).json()) as Operation).id,
    );
    expect(api.result?.variables).toContainEqual({
      repository: "acme/api",
      name: "API_BASE_URL",
      assigned: "REPO_API__API_BASE_URL",
      source: "sandbox.env",
    });
    // Revival: a new sandbox (and turn) for the same engagement keeps every assignment.
    const revived = await harness.sandbox("ws_acme", "eng-1");
    const again = await harness.settle(
      revived,
      ((await (await harness.start(revived, "acme/api")).json()) as Operation).id,
    );
    expect(again.result?.variables).toEqual(api.result?.variables);
    expect(again.result?.overlayRevision).toBe(3);

    await harness.admin(ADMIN_PATHS.disconnectRepository, { workspaceId: "ws_acme", repository: "acme/web" });
    const after = await harness.settle(
      revived,
      ((await (await harness.start(revived, "acme/api")).json()) as Operation).id,
    );
    expect(after.result?.variables.map((v) => v.assigned)).toEqual([
      "REPO_API__API_BASE_URL",
      "LOG_LEVEL",
      "DATABASE_PASSWORD",
    ]);
    const reserved = (
      await harness.db.all("SELECT assigned FROM ledger_entries WHERE status = 'reserved' ORDER BY position")
    ).map((r) => (r as { assigned: string }).assigned);
    expect(reserved).toEqual(["API_BASE_URL", "STRIPE_KEY"]);
  });
});

it("no canary secret value appears in any response body", async () => {
  harness = await createHarness();
  const creds = await harness.sandbox("ws_acme", "eng-1");
  for (const repo of ["acme/api", "acme/web"]) {
    const op = await harness.settle(
      creds,
      ((await (await harness.start(creds, repo)).json()) as Operation).id,
    );
    await harness.request("GET", PATHS.operationOverlay(op.id), { headers: opsHeaders(creds) });
  }
  await harness.start(creds, "acme/api", "k1");
  await harness.start(creds, "acme/web", "k1");
  expect(harness.responses.length).toBeGreaterThan(5);
  for (const body of harness.responses) for (const canary of CANARIES) expect(body).not.toContain(canary);
});

async function waitForRow(h: Harness, id: string, states = ["failed", "succeeded"]): Promise<void> {
  const row = await pollUntil(
    async () => (await h.db.get("SELECT state FROM operations WHERE id = ?", [id])) as { state: string },
    (current) => states.includes(current.state),
    { timeoutMs: 30_000, intervalMs: 10 },
  );
  if (!states.includes(row.state)) throw new Error(`operation ${id} did not finish`);
}
