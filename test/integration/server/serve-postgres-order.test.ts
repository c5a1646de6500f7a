// Per-engagement order across instances: three `baton serve --database-url` processes on one schema behind a
// round-robin (each request to the next instance), and one engagement's activations posted to all of them at
// once. The reference's rule is that an engagement's operations run one at a time in the order they arrived;
// with several instances "arrived" is the order the store took them in (the operations table's sequence), so
// each operation must finish after every earlier one and see the overlay revision after theirs.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PATHS, CreateSandboxResponseSchema, HEADERS } from "../../../src/transport/wire.js";
import { admin, freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { type PostgresServe, schemaUrl, startPostgresServe } from "../../helpers/serve-postgres.js";
import { API_SEED, until } from "../api/harness.js";

const ACTIVATIONS = 12;
let dir: string;
let schema: TestSchema;
const instances: PostgresServe[] = [];

/** The simple load balancer of the issue: each call goes to the next instance in turn. */
function roundRobin<T>(targets: readonly T[]): () => T {
  let next = 0;
  return () => targets[next++ % targets.length]!;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-order-"));
  schema = await freshSchema();
  const start = (name: string, seed?: string) =>
    startPostgresServe({
      databaseUrl: schemaUrl(schema.schema),
      secretKeyFile: join(dir, "store.key"),
      workDir: join(dir, name),
      // Each activation holds its engagement for a moment, so the twelve overlap and queue behind each other.
      env: { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "40" },
      ...(seed ? { seed } : {}),
    });
  instances.push(await start("a", API_SEED));
  instances.push(...(await Promise.all([start("b"), start("c")])));
});

afterAll(async () => {
  for (const serve of instances) await serve.stop();
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("three instances on one PostgreSQL schema behind a round-robin", () => {
  it("concurrent activations in one engagement run one at a time, in the order the store took them", async () => {
    const made = await instances[0]!.admin(ADMIN_PATHS.sandboxes, {
      workspaceId: "ws_acme",
      engagementId: "eng_order",
    });
    expect(made.status).toBe(201);
    const sandbox = CreateSandboxResponseSchema.parse(await made.json());
    const headers = {
      authorization: `Bearer ${sandbox.turnToken}`,
      [HEADERS.sandboxLease]: sandbox.lease,
      "content-type": "application/json",
    };
    const next = roundRobin(instances);
    const answers = await Promise.all(
      Array.from({ length: ACTIVATIONS }, async (_, i) => {
        const serve = next();
        const response = await fetch(`${serve.opsUrl}/ops/v1/operations`, {
          method: "POST",
          headers: { ...headers, "idempotency-key": `order-${i}` },
          body: JSON.stringify({ kind: "env.activate", repository: i % 2 === 0 ? "acme/api" : "acme/web" }),
        });
        return { status: response.status, body: (await response.json()) as { id: string; state: string } };
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(ACTIVATIONS).fill(202));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(ACTIVATIONS);

    const table = `"${schema.schema}".operations`;
    const rows = await until(async () => {
      const result = await admin(
        `SELECT id, state, overlay_revision, finished_at FROM ${table} WHERE sandbox_id = $1 ORDER BY seq`,
        [sandbox.sandboxId],
      );
      return result.rows.length === ACTIVATIONS &&
        result.rows.every((row) => row.state !== "pending" && row.state !== "running")
        ? (result.rows as { id: string; state: string; overlay_revision: number; finished_at: string }[])
        : undefined;
    }, "all twelve operations finished");
    expect(rows.map((row) => row.state)).toEqual(Array(ACTIVATIONS).fill("succeeded"));
    const revisions = rows.map((row) => Number(row.overlay_revision));
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(ACTIVATIONS);
    const finished = rows.map((row) => row.finished_at);
    expect(finished).toEqual([...finished].sort());
  });
});
