// Issue 26: "`kill -9` of one instance mid-operation and mid-turn: another finishes or fails it within the lease
// timeout, none stays running". Two real `baton serve --database-url` instances on one schema with a short lease
// (BATON_SERVE_TEST_LEASE_MS); the instance holding the work (read from the row's claim, matched to the instance
// id each logs at start) is killed with SIGKILL, and the other must take the work over and end it.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteIdentifier } from "../../../src/server/store/postgres-store.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  HEADERS,
  type Operation,
  PATHS,
} from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { admin, freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { type PostgresServe, schemaUrl, startPostgresServe } from "../../helpers/serve-postgres.js";
import { API_SEED, TOKENS } from "../api/harness.js";

const LEASE_MS = 1500;
/** Holds each activation `running` this long, so the kill lands mid-operation (on the survivor too: it reruns). */
const ACTIVATION_DELAY_MS = 3000;
/** The scripted agent's rule for a turn that takes this long (so the kill lands mid-turn). */
const TURN_MS = 3000;
/** After the kill: the lease runs out, the next sweep (every lease/3) takes the work, which then runs again. */
const TAKEOVER_DEADLINE_MS = LEASE_MS + LEASE_MS / 3 + Math.max(ACTIVATION_DELAY_MS, TURN_MS) + 15_000;

let dir: string;
let schema: TestSchema;
let a: PostgresServe;
let b: PostgresServe;

async function row(table: string, id: string): Promise<Record<string, unknown> | undefined> {
  const result = await admin(
    `SELECT * FROM ${quoteIdentifier(schema.schema)}.${quoteIdentifier(table)} WHERE id = $1`,
    [id],
  );
  const found = result.rows[0] as Record<string, unknown> | undefined;
  // The raw client gives int8 as text (the store's own connections give numbers).
  return found && { ...found, attempts: Number(found.attempts) };
}

/** The instance id a serve logged at start (the `listening` line). */
function instanceOf(serve: PostgresServe): string {
  const match = /"instance":"([^"]+)"/.exec(serve.output());
  if (!match) throw new Error(`no instance id logged:\n${serve.output()}`);
  return match[1]!;
}

/** Waits until the row is `running` under some instance's claim, and returns that instance's handle. */
async function holderOf(table: string, id: string): Promise<PostgresServe> {
  const held = await pollUntil(
    () => row(table, id),
    (r) => r?.state === "running" && typeof r.claimed_by === "string",
    { timeoutMs: 20_000 },
  );
  expect(held?.state, JSON.stringify(held)).toBe("running");
  const holder = [a, b].find((serve) => instanceOf(serve) === held!.claimed_by);
  expect(holder, `claimed by ${String(held!.claimed_by)}`).toBeDefined();
  return holder!;
}

/** Restarts whichever instance an earlier test killed or stopped, so two are up again. */
async function bothAlive(): Promise<void> {
  const alive = await Promise.all(
    [a, b].map(async (serve) => (await fetch(`${serve.url}/healthz`).catch(() => undefined))?.ok === true),
  );
  if (!alive[0]) a = await startInstance(`a${Date.now()}`);
  if (!alive[1]) b = await startInstance(`b${Date.now()}`);
}

/** A task whose scripted turn takes TURN_MS, started on `serve`; its first turn's id. */
async function startSlowTask(serve: PostgresServe): Promise<{ taskId: string; turnId: string }> {
  const response = await fetch(`${serve.url}${API_PATHS.tasks("ws_acme")}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKENS.owner}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "this takes a while" }),
  });
  const body = (await response.json()) as { task: { id: string } };
  expect(response.status, JSON.stringify(body)).toBe(202);
  const turn = await admin(
    `SELECT id FROM ${quoteIdentifier(schema.schema)}.task_turns WHERE task_id = $1 ORDER BY seq LIMIT 1`,
    [body.task.id],
  );
  return { taskId: body.task.id, turnId: turn.rows[0]!.id as string };
}

/** The task's conversation read on `serve` until the agent has answered (or the takeover deadline passed). */
async function repliesOn(serve: PostgresServe, taskId: string): Promise<{ role: string; body: string }[]> {
  return pollUntil(
    async () => {
      const page = await fetch(`${serve.url}${API_PATHS.messages("ws_acme", taskId)}`, {
        headers: { authorization: `Bearer ${TOKENS.owner}` },
      });
      return ((await page.json()) as { messages?: { role: string; body: string }[] }).messages ?? [];
    },
    (list) => list.length >= 2,
    { timeoutMs: TAKEOVER_DEADLINE_MS },
  );
}

async function startInstance(name: string, seed?: string): Promise<PostgresServe> {
  return startPostgresServe({
    databaseUrl: schemaUrl(schema.schema),
    secretKeyFile: join(dir, "store.key"),
    workDir: join(dir, name),
    env: {
      BATON_LOG_LEVEL: "info",
      BATON_SERVE_TEST_LEASE_MS: String(LEASE_MS),
      BATON_SERVE_TEST_ACTIVATION_DELAY_MS: String(ACTIVATION_DELAY_MS),
    },
    ...(seed ? { seed } : {}),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-leases-"));
  schema = await freshSchema();
  const seed = JSON.parse(await readFile(API_SEED, "utf8"));
  seed.agent.rules.unshift({ match: "takes a while", delayMs: TURN_MS, reply: "Done after a while." });
  await writeFile(join(dir, "seed.json"), JSON.stringify(seed));
  a = await startInstance("a", join(dir, "seed.json"));
  b = await startInstance("b");
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("the instance holding the work dies or stops: the other takes it over", () => {
  it("mid-operation: the other instance finishes it within the lease timeout, and it never stays running", async () => {
    const made = await a.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "eng_lease" });
    expect(made.status, a.output()).toBe(201);
    const creds = CreateSandboxResponseSchema.parse(await made.json());
    const headers = {
      [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
      [HEADERS.sandboxLease]: creds.lease,
      "content-type": "application/json",
    };
    const started = await fetch(new URL(PATHS.operations, a.opsUrl), {
      method: "POST",
      headers: { ...headers, [HEADERS.idempotencyKey]: "lease-op-1" },
      body: JSON.stringify({ kind: "env.activate", repository: "acme/api" }),
    });
    expect(started.status, a.output()).toBe(202);
    const op = (await started.json()) as Operation;

    const holder = await holderOf("operations", op.id);
    const survivor = holder === a ? b : a;
    expect(await holder.kill9()).toBe("SIGKILL");
    const killedAt = Date.now();

    const read = async () => {
      const response = await fetch(new URL(PATHS.operation(op.id), survivor.opsUrl), { headers });
      return (await response.json()) as Operation;
    };
    const done = await pollUntil(read, (o) => o.state === "succeeded" || o.state === "failed", {
      timeoutMs: TAKEOVER_DEADLINE_MS,
    });
    expect(done.state, survivor.output()).toBe("succeeded");
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_DEADLINE_MS);
    // Taken over (a second attempt) by the survivor, whose log says so; the claim is gone with the run.
    const stored = await row("operations", op.id);
    expect(stored).toMatchObject({ attempts: 2, claimed_by: null, lease_until_ms: null });
    expect(survivor.output()).toContain("took over an operation whose instance stopped renewing its lease");
  });

  it("mid-turn: the other instance reruns the turn to the agent's reply within the lease timeout", async () => {
    await bothAlive();
    const { taskId, turnId } = await startSlowTask(a);
    const holder = await holderOf("task_turns", turnId);
    const other = holder === a ? b : a;
    expect(await holder.kill9()).toBe("SIGKILL");
    const killedAt = Date.now();

    const messages = await repliesOn(other, taskId);
    expect(messages[1], other.output()).toMatchObject({ role: "agent", body: "Done after a while." });
    expect(Date.now() - killedAt).toBeLessThan(TAKEOVER_DEADLINE_MS);
    const turn = await row("task_turns", turnId);
    expect(turn).toMatchObject({ state: "succeeded", attempts: 2, claimed_by: null, lease_until_ms: null });
    expect(other.output()).toContain("took over a turn whose instance stopped renewing its lease");
  });

  it("SIGTERM of the instance holding a turn gives it back at once: the other reruns it without using up a try", async () => {
    await bothAlive();
    const { taskId, turnId } = await startSlowTask(a);
    const holder = await holderOf("task_turns", turnId);
    const other = holder === a ? b : a;
    expect(await holder.stop()).toBe(0);
    const stoppedAt = Date.now();
    const messages = await repliesOn(other, taskId);
    expect(messages[1], other.output()).toMatchObject({ role: "agent", body: "Done after a while." });
    // Given back (attempts back to 0 and no claim), then begun again elsewhere as attempt 1, not 2.
    expect(Date.now() - stoppedAt).toBeLessThan(TAKEOVER_DEADLINE_MS);
    expect(await row("task_turns", turnId)).toMatchObject({
      state: "succeeded",
      attempts: 1,
      claimed_by: null,
    });
  });
});
