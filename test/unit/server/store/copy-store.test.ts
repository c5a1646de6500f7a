// The copier on small schemas made here on both sides (a real SQLite database and a real PostgreSQL schema of
// its own): what it copies is read back by the test itself, independently of the copier's own check.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isBatonError } from "../../../../src/errors.js";
import { type CopyProgress, copyStore } from "../../../../src/server/store/copy-store.js";
import type { PostgresStore } from "../../../../src/server/store/postgres-store.js";
import { type Database, loadSqlite } from "../../../../src/server/store/sqlite.js";
import { freshSchema, type TestSchema } from "../../../helpers/postgres.js";

const SQLITE_SCHEMA = `
  CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, enabled INTEGER NOT NULL);
  CREATE TABLE tasks (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    score REAL,
    big INTEGER,
    blob BLOB
  );
  CREATE TABLE notes (task_id TEXT NOT NULL REFERENCES tasks(id), n INTEGER NOT NULL, body TEXT, PRIMARY KEY (task_id, n));
`;

const POSTGRES_SCHEMA = `
  CREATE TABLE workspaces (id TEXT PRIMARY KEY, name TEXT NOT NULL, enabled INTEGER NOT NULL);
  CREATE TABLE tasks (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    workspace_id TEXT NOT NULL REFERENCES workspaces(id),
    score DOUBLE PRECISION,
    big BIGINT,
    blob BYTEA
  );
  CREATE TABLE notes (task_id TEXT NOT NULL REFERENCES tasks(id), n INTEGER NOT NULL, body TEXT, PRIMARY KEY (task_id, n));
`;

/** Text whose byte order differs from a locale's order: SQLite sorts by bytes, and so must the check. */
const AWKWARD_TEXT = ["b", "B", "a", "é", "Z", "zz", "𝄞 clef", "", "with 'quote'", 'with "double"', "?"];

let sqlite: Database;
let schema: TestSchema;
let target: PostgresStore;

beforeEach(async () => {
  const { DatabaseSync } = await loadSqlite();
  sqlite = new DatabaseSync(":memory:");
  sqlite.exec(SQLITE_SCHEMA);
  schema = await freshSchema();
  target = schema.open();
  for (const statement of POSTGRES_SCHEMA.split(";").filter((s) => s.trim())) await target.run(statement);
});

afterEach(async () => {
  sqlite.close();
  await schema.drop();
});

function fill(tasks: number): void {
  sqlite.prepare("INSERT INTO workspaces VALUES ('w1', 'One', 1), ('w2', 'Two', 0)").run();
  const insertTask = sqlite.prepare(
    "INSERT INTO tasks (id, workspace_id, score, big, blob) VALUES (?, ?, ?, ?, ?)",
  );
  const insertNote = sqlite.prepare("INSERT INTO notes VALUES (?, ?, ?)");
  for (let i = 0; i < tasks; i += 1) {
    const id = `${AWKWARD_TEXT[i % AWKWARD_TEXT.length]}-${i}`;
    insertTask.run(
      id,
      i % 2 ? "w1" : "w2",
      i % 3 ? i / 7 : null,
      2n ** 60n + BigInt(i),
      Buffer.from([0, i % 256, 255]),
    );
    insertNote.run(id, 1, `note ${i} ${AWKWARD_TEXT[i % AWKWARD_TEXT.length]}`);
  }
}

async function expectError(promise: Promise<unknown>, code: string, text: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(isBatonError(error), String(error)).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  expect((error as Error).message).toMatch(text);
}

async function targetRows(table: string): Promise<number> {
  return Number((await target.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);
}

describe("copyStore", () => {
  it("copies every table in foreign-key order, and reading both back gives the same values", async () => {
    fill(50);
    const progress: CopyProgress[] = [];
    const result = await copyStore(sqlite, target, { onProgress: (p) => progress.push(p) });
    expect(result.tables.map((t) => t.name)).toEqual(["workspaces", "tasks", "notes"]);
    expect(result.tables.map((t) => t.rows)).toEqual([2, 50, 50]);
    expect(result.rows).toBe(102);
    expect(progress.filter((p) => p.done).map((p) => [p.table, p.rows])).toEqual([
      ["workspaces", 2],
      ["tasks", 50],
      ["notes", 50],
    ]);
    // Read back independently of the copier: every value, compared as each engine returns it.
    const sourceTasks = sqlite.prepare(
      "SELECT seq, id, workspace_id, score, big, blob FROM tasks ORDER BY seq",
    );
    sourceTasks.setReadBigInts(true);
    const copied = await target.all<Record<string, unknown>>("SELECT * FROM tasks ORDER BY seq");
    expect(
      copied.map((row) => ({ ...row, big: BigInt(String(row.big)), seq: BigInt(Number(row.seq)) })),
    ).toEqual(sourceTasks.all().map((row) => ({ ...row, blob: Buffer.from(row.blob as Uint8Array) })));
    expect(await target.all("SELECT * FROM notes ORDER BY task_id, n")).toEqual(
      sqlite
        .prepare("SELECT * FROM notes ORDER BY task_id, n")
        .all()
        .map((row) => ({ ...row })),
    );
  });

  it("moves an identity sequence past the AUTOINCREMENT high-water mark, even past deleted ids", async () => {
    fill(5);
    sqlite.exec(
      "DELETE FROM notes WHERE task_id IN (SELECT id FROM tasks WHERE seq > 3); DELETE FROM tasks WHERE seq > 3",
    );
    await copyStore(sqlite, target);
    const next = await target.get<{ seq: number }>(
      "INSERT INTO tasks (id, workspace_id) VALUES ('new', 'w1') RETURNING seq",
    );
    expect(next!.seq).toBe(6);
  });

  it("copies a table larger than one INSERT in batches (20,000 rows) in reasonable time", async () => {
    fill(10_000);
    const started = Date.now();
    const progress: CopyProgress[] = [];
    const result = await copyStore(sqlite, target, {
      progressEvery: 5_000,
      onProgress: (p) => progress.push(p),
    });
    expect(result.rows).toBe(20_002);
    // Every 5,000 rows and once at the end: a table of exactly 10,000 rows reports 10,000 once.
    expect(progress.filter((p) => p.table === "tasks")).toEqual([
      { table: "tasks", rows: 5_000, done: false },
      { table: "tasks", rows: 10_000, done: true },
    ]);
    expect(await targetRows("tasks")).toBe(10_000);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("refuses a target that already holds a row in any table, names it, and changes nothing", async () => {
    fill(3);
    await target.run("INSERT INTO workspaces VALUES ('w9', 'Already here', 1)");
    await expectError(copyStore(sqlite, target), "refused", /already holds rows in workspaces/);
    expect(await target.all("SELECT id FROM workspaces")).toEqual([{ id: "w9" }]);
    expect(await targetRows("tasks")).toBe(0);
  });

  it("leaves the target with no rows when PostgreSQL refuses one table half way through", async () => {
    fill(20);
    // A trigger stands in for any failure mid-copy (disk full, a constraint): the tables before it are copied.
    await target.run(
      "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no notes today'; END $$",
    );
    await target.run(
      "CREATE TRIGGER refuse_notes BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION refuse()",
    );
    await expectError(
      copyStore(sqlite, target),
      "service_error",
      /refused the rows of notes: no notes today/,
    );
    for (const table of ["workspaces", "tasks", "notes"]) expect(await targetRows(table)).toBe(0);
  });

  it("fails the check naming the table when a value read back differs, and commits nothing", async () => {
    fill(4);
    // A trigger that rewrites one value as it lands: the copy succeeds, only reading back can notice.
    await target.run(
      "CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.body = upper(NEW.body); RETURN NEW; END $$",
    );
    await target.run(
      "CREATE TRIGGER shout_notes BEFORE INSERT ON notes FOR EACH ROW EXECUTE FUNCTION shout()",
    );
    await expectError(
      copyStore(sqlite, target),
      "check_failed",
      /differs from the SQLite store in notes \(the same 4 rows/,
    );
    expect(await targetRows("workspaces")).toBe(0);
  });

  it("names a table the target lacks instead of copying part of the store", async () => {
    sqlite.exec("CREATE TABLE extra (id INTEGER PRIMARY KEY)");
    fill(1);
    await expectError(copyStore(sqlite, target), "invalid_input", /has no table extra/);
    expect(await targetRows("workspaces")).toBe(0);
  });
});
