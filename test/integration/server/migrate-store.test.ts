// `baton admin migrate-store` through the real binary: a SQLite store filled by a real `baton serve` (the API
// seed with its sealed secret, a token and a task made through the service) is copied into a PostgreSQL schema
// of this suite's own, and the test reads both back table by table itself, independently of the command's check.
import { statSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { migrateDatabase } from "../../../src/server/store/migrate.js";
import { SCHEMA_VERSION } from "../../../src/server/store/migrate-to-postgres.js";
import { MIGRATIONS } from "../../../src/server/store/migrations/index.js";
import { openPostgresStore } from "../../../src/server/store/open-store.js";
import { loadSqlite } from "../../../src/server/store/sqlite.js";
import { readSqliteTables } from "../../../src/server/store/sqlite-tables.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import { admin, freshSchema, TEST_DATABASE_URL, type TestSchema } from "../../helpers/postgres.js";
import { killLeftoverServes, type ServeHandle, startServe, TEST_ADMIN_TOKEN } from "../../helpers/serve.js";
import { API_SEED, CANARIES } from "../api/harness.js";

const PASSWORD_CANARY = "canary-pg-password-3b9d0a71";

let dir: string;
let dbPath: string;
let serve: ServeHandle;
let madeToken: string;
const schemas: TestSchema[] = [];
const outputs: string[] = [];

/** The suite's database URL with its own schema first on the search path, as an operator would pass one. */
const urlFor = (schema: TestSchema) =>
  `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema.schema}`)}`;

async function newSchema(): Promise<TestSchema> {
  const schema = await freshSchema();
  schemas.push(schema);
  return schema;
}

async function migrateStore(args: string[]) {
  const run = await runBaton(["admin", "migrate-store", ...args]);
  outputs.push(run.stdout, run.stderr);
  return run;
}

/** Every row of a table on one engine, each value in one text form, sorted: order and driver types aside. */
function canonical(rows: Record<string, unknown>[], columns: readonly string[]): string[] {
  const text = (value: unknown) =>
    value === null ? null : value instanceof Uint8Array ? Buffer.from(value).toString("hex") : String(value);
  return rows.map((row) => JSON.stringify(columns.map((column) => text(row[column])))).sort();
}

async function postgresRows(schema: TestSchema, table: string): Promise<Record<string, unknown>[]> {
  return (await admin(`SELECT * FROM "${schema.schema}"."${table}"`)).rows;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-migrate-store-"));
  serve = await startServe({ seed: API_SEED, dir });
  dbPath = serve.dbPath;
  const created = await runBaton(
    ["admin", "token", "create", "--url", serve.adminUrl, "--email", "dev@acme.test", "--name", "migrated"],
    { env: { BATON_ADMIN_TOKEN: TEST_ADMIN_TOKEN } },
  );
  expect(created.exitCode, created.stderr).toBe(0);
  madeToken = created.stdout.trim();
  const started = await fetch(`${serve.url}${API_PATHS.tasks("ws_acme")}`, {
    method: "POST",
    headers: { authorization: `Bearer ${madeToken}`, "content-type": "application/json" },
    body: JSON.stringify({ prompt: "write notes before the move" }),
  });
  expect(started.status).toBe(202);
  const { task } = (await started.json()) as { task: { id: string } };
  const replied = await pollUntil(
    async () => {
      const answer = await fetch(`${serve.url}${API_PATHS.task("ws_acme", task.id)}`, {
        headers: { authorization: `Bearer ${madeToken}` },
      });
      return ((await answer.json()) as { status: string }).status;
    },
    (status) => status === "replied",
    { timeoutMs: 30_000 },
  );
  expect(replied).toBe("replied");
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
  for (const schema of schemas) await schema.drop();
  // Nothing any run printed holds a secret value, a token or the database password.
  expect(outputs.join("\n")).not.toMatch(new RegExp([...CANARIES, PASSWORD_CANARY, madeToken].join("|")));
  await rm(dir, { recursive: true, force: true });
});

describe("baton admin migrate-store", () => {
  it("refuses a store a running baton serve holds (exit 1), naming its pid", async () => {
    const schema = await newSchema();
    const run = await migrateStore(["--db", dbPath, "--database-url", urlFor(schema)]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/in use by another baton serve \(pid \d+\); stop that one first/);
    await serve.stop();
  });

  it("copies every table, and reading both back gives the same rows; secrets stay sealed", async () => {
    const schema = await newSchema();
    const run = await migrateStore(["--db", dbPath, "--database-url", urlFor(schema)]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^copying workspaces: \d+ rows$/m);
    expect(run.stderr).toMatch(/^copying engagements: 1 row$/m);
    expect(run.stderr).toMatch(/read both back: they agree/);
    expect(run.stdout).toMatch(/^table\s+rows\n/);
    expect(run.stdout).toMatch(/^tasks\s+1$/m);

    const { DatabaseSync } = await loadSqlite();
    const sqlite = new DatabaseSync(dbPath, { readOnly: true });
    try {
      const tables = readSqliteTables(sqlite);
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(["tasks", "secrets", "personal_access_tokens"]),
      );
      for (const table of tables) {
        const source = sqlite.prepare(`SELECT * FROM "${table.name}"`);
        source.setReadBigInts(true);
        const copied = await postgresRows(schema, table.name);
        expect(canonical(copied, table.columns), table.name).toEqual(canonical(source.all(), table.columns));
        expect(run.stdout).toMatch(
          new RegExp(`^${table.name}\\s+${copied.length.toLocaleString("en-US")}$`, "m"),
        );
      }
      const sealed = sqlite.prepare("SELECT value_sealed FROM secrets").all();
      expect(sealed.length).toBeGreaterThan(0);
      expect((await postgresRows(schema, "secrets")).map((row) => row.value_sealed)).toEqual(
        sealed.map((row) => row.value_sealed),
      );
      expect(JSON.stringify(await postgresRows(schema, "secrets"))).not.toContain(CANARIES[0]);
    } finally {
      sqlite.close();
    }
    // The identity sequences moved past the copied ids: the next task gets a new seq.
    const next = await admin(
      `SELECT nextval(pg_get_serial_sequence('"${schema.schema}".tasks', 'seq')) AS next, (SELECT max(seq) FROM "${schema.schema}".tasks) AS max`,
    );
    expect(Number(next.rows[0].next)).toBeGreaterThan(Number(next.rows[0].max));
  });

  it("refuses a target that already holds rows (exit 2), names the table and changes nothing", async () => {
    const schema = await newSchema();
    expect((await migrateStore(["--db", dbPath, "--database-url", urlFor(schema)])).exitCode).toBe(0);
    const before = (await admin(`SELECT count(*)::int AS n FROM "${schema.schema}".tasks`)).rows[0].n;
    await admin(`UPDATE "${schema.schema}".tasks SET title = 'edited after the move'`);
    const run = await migrateStore(["--db", dbPath, "--database-url", urlFor(schema)]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/already holds rows in \w+; migrate-store copies only into an empty store/);
    expect(run.stdout).toBe("");
    const after = await postgresRows(schema, "tasks");
    expect(after.length).toBe(before);
    expect(after.every((row) => row.title === "edited after the move")).toBe(true);
  });

  it("refuses a SQLite file at an older schema (exit 2), saying to start this version's baton serve once", async () => {
    const older = join(dir, "older.sqlite");
    const { DatabaseSync } = await loadSqlite();
    const db = new DatabaseSync(older);
    await migrateDatabase(db, MIGRATIONS.slice(0, -1));
    db.close();
    const run = await migrateStore(["--db", older, "--database-url", urlFor(await newSchema())]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(
        `lacks version ${SCHEMA_VERSION}\\): start this version's baton serve --db .*older\\.sqlite once`,
      ),
    );
  });

  it.each([
    [
      "no such file",
      ["--db", "/nonexistent/serve.sqlite"],
      2,
      /there is no SQLite store at \/nonexistent\/serve\.sqlite/,
    ],
    [
      "a URL that is not postgres://",
      ["--database-url", `mysql://baton:${PASSWORD_CANARY}@h/db`],
      1,
      /--database-url must look like postgres:\/\/.*mysql:\/\/baton:\*\*\*@h\/db/,
    ],
    [
      "an unreachable server",
      ["--database-url", `postgres://baton:${PASSWORD_CANARY}@127.0.0.1:1/baton_test`],
      1,
      /cannot reach PostgreSQL at postgres:\/\/baton:\*\*\*@127\.0\.0\.1:1\/baton_test/,
    ],
    [
      "a wrong password",
      ["--database-url", `postgres://baton:${PASSWORD_CANARY}@127.0.0.1:5432/baton_test`],
      1,
      /password authentication failed for user "baton"/,
    ],
  ])("%s fails fast, saying what to fix, without the password", async (_case, args, exitCode, message) => {
    const flags = {
      "--db": dbPath,
      "--database-url": `${TEST_DATABASE_URL}?options=-c%20search_path%3Dnone`,
      ...Object.fromEntries([args as [string, string]]),
    };
    const started = Date.now();
    const run = await migrateStore(Object.entries(flags).flat());
    expect(run.exitCode).toBe(exitCode);
    expect(run.stderr).toMatch(message);
    expect(`${run.stdout}${run.stderr}`).not.toContain(PASSWORD_CANARY);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("names a schema on the search path that does not exist (exit 1), creating nothing", async () => {
    const missing = `t_missing_${Date.now()}`;
    const run = await migrateStore([
      "--db",
      dbPath,
      "--database-url",
      `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${missing}`)}`,
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /has no such schema \(no schema has been selected to create in\): create it first/,
    );
    expect((await admin("SELECT 1 FROM pg_namespace WHERE nspname = $1", [missing])).rowCount).toBe(0);
  });

  it("copies a store whose service was killed (kill -9), reading what its write-ahead log holds", async () => {
    const crashed = await startServe({ seed: API_SEED, dir: await mkdtemp(join(dir, "crashed-")) });
    await crashed.kill9();
    // The seed's rows are still in the write-ahead log, not yet in the file itself.
    expect(statSync(`${crashed.dbPath}-wal`).size).toBeGreaterThan(0);
    const run = await migrateStore([
      "--db",
      crashed.dbPath,
      "--database-url",
      urlFor(await newSchema()),
      "--json",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const { DatabaseSync } = await loadSqlite();
    const sqlite = new DatabaseSync(crashed.dbPath, { readOnly: true });
    const seeded = Number((sqlite.prepare("SELECT count(*) AS n FROM seed_items").get() as { n: number }).n);
    sqlite.close();
    expect(seeded).toBeGreaterThan(0);
    expect(JSON.parse(run.stdout).tables).toContainEqual({ name: "seed_items", rows: seeded });
  });

  it("leaves the target with no rows when PostgreSQL fails half way through the copy (exit 1, naming the table)", async () => {
    const schema = await newSchema();
    // The schema made ahead (as the command would), plus a trigger standing in for any failure mid-copy.
    const store = await openPostgresStore(urlFor(schema), { poolSize: 1 });
    await store.run(
      "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no tasks today'; END $$",
    );
    await store.run(
      "CREATE TRIGGER refuse_tasks BEFORE INSERT ON tasks FOR EACH ROW EXECUTE FUNCTION refuse()",
    );
    await store.close();
    const run = await migrateStore(["--db", dbPath, "--database-url", urlFor(schema)]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/PostgreSQL refused the rows of tasks: no tasks today/);
    expect(run.stderr).toMatch(/^copying workspaces: \d+ rows$/m);
    const counts = await admin(
      `SELECT sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I.%I', table_schema, table_name), false, true, '')))[1]::text::int) AS total
       FROM information_schema.tables WHERE table_schema = $1 AND table_name <> 'schema_migrations'`,
      [schema.schema],
    );
    expect(Number(counts.rows[0].total)).toBe(0);
  });

  it("--json prints {tables, rows, version}, and a table of 20,000 rows copies in reasonable time", async () => {
    const large = join(dir, "large.sqlite");
    await copyFile(dbPath, large);
    const { DatabaseSync } = await loadSqlite();
    const db = new DatabaseSync(large);
    const insert = db.prepare(
      "INSERT INTO ticket_comments (workspace_id, source, issue_key, body, created_at) VALUES ('ws_acme', 'tracker', ?, ?, '2026-11-27T00:00:00.000Z')",
    );
    db.exec("BEGIN");
    for (let i = 0; i < 20_000; i += 1) insert.run(`ACME-${i % 300}`, `comment ${i} ${"é".repeat(i % 50)}`);
    db.exec("COMMIT");
    db.close();
    const schema = await newSchema();
    const started = Date.now();
    const run = await migrateStore(["--db", large, "--database-url", urlFor(schema), "--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const answer = z
      .strictObject({
        tables: z.array(z.strictObject({ name: z.string(), rows: z.number().int().nonnegative() })),
        rows: z.number().int(),
        version: z.literal(SCHEMA_VERSION),
      })
      .parse(JSON.parse(run.stdout));
    expect(answer.tables.find((t) => t.name === "ticket_comments")?.rows).toBe(20_000);
    expect(answer.rows).toBe(answer.tables.reduce((sum, t) => sum + t.rows, 0));
    expect(run.stderr).toMatch(/^copying ticket_comments: 10,000 rows$/m);
    expect(run.stderr).toMatch(/^copying ticket_comments: 20,000 rows$/m);
    const copied = await admin(`SELECT count(*)::int AS n FROM "${schema.schema}".ticket_comments`);
    expect(copied.rows[0].n).toBe(20_000);
  });
});
