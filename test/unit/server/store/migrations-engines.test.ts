// The same versioned migrations on both engines (issue 26, point 1): one runner, each migration in its own
// transaction, recorded once; a failing one leaves nothing behind; the resulting schemas have the same shape.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { migrateStore } from "../../../../src/server/store/migrate.js";
import { MIGRATIONS, type Migration } from "../../../../src/server/store/migrations/index.js";
import type { Store } from "../../../../src/server/store/store.js";
import { ENGINES, freshSchema } from "../../../helpers/postgres.js";
import { narrowIntegerColumns, readSchemaShape, type SchemaShape } from "../../../helpers/schema-shape.js";

const ALL_VERSIONS = MIGRATIONS.map((m) => m.version).sort((a, b) => a - b);

async function recordedVersions(store: Store): Promise<number[]> {
  const rows = await store.all<{ version: number }>("SELECT version FROM schema_migrations ORDER BY version");
  return rows.map((r) => r.version);
}

async function tableExists(store: Store, table: string): Promise<boolean> {
  const sql =
    store.engine === "sqlite"
      ? "SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?"
      : "SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?";
  return (await store.get(sql, [table])) !== undefined;
}

describe.each(ENGINES)("migrations on the $name engine", (engine) => {
  let store: Store;
  let tearDown: () => Promise<void>;

  beforeEach(async () => {
    ({ store, tearDown } = await engine.setUp());
  });
  afterEach(() => tearDown());

  it("applies every migration once, in version order, and records each version", async () => {
    expect(await migrateStore(store)).toEqual(ALL_VERSIONS);
    expect(await recordedVersions(store)).toEqual(ALL_VERSIONS);
  });

  it("re-running migrates nothing; an appended migration runs alone, after the others", async () => {
    await migrateStore(store);
    expect(await migrateStore(store)).toEqual([]);
    const appended: Migration = {
      version: 9999,
      name: "appended",
      up: (m) => m.exec("CREATE TABLE appended (x INTEGER NOT NULL)"),
    };
    expect(await migrateStore(store, [...MIGRATIONS, appended])).toEqual([9999]);
    expect(await migrateStore(store, [...MIGRATIONS, appended])).toEqual([]);
    expect(await recordedVersions(store)).toEqual([...ALL_VERSIONS, 9999]);
  });

  it("a failing migration leaves no partial table and no version row, and the ones before it stay", async () => {
    const good: Migration = { version: 1, name: "good", up: (m) => m.exec("CREATE TABLE good (x INTEGER)") };
    const broken: Migration = {
      version: 2,
      name: "broken",
      up: (m) =>
        m.exec("CREATE TABLE half (x INTEGER); INSERT INTO half (x) VALUES (1); SELECT * FROM nowhere"),
    };
    await expect(migrateStore(store, [good, broken])).rejects.toThrow(/nowhere/);
    expect(await tableExists(store, "good")).toBe(true);
    expect(await tableExists(store, "half")).toBe(false);
    expect(await recordedVersions(store)).toEqual([1]);
  });

  it("refuses two migrations with one version before running either", async () => {
    const one: Migration = { version: 5, name: "one", up: (m) => m.exec("CREATE TABLE one (x INTEGER)") };
    const two: Migration = { version: 5, name: "two", up: (m) => m.exec("CREATE TABLE two (x INTEGER)") };
    await expect(migrateStore(store, [one, two])).rejects.toThrow(/"one" and "two" share version 5/);
    expect(await tableExists(store, "one")).toBe(false);
  });

  it("writes INTEGER as 64 bits, BLOB as bytes and REAL as a double, reading back what was written", async () => {
    const typed: Migration = {
      version: 1,
      name: "typed",
      up: (m) =>
        m.exec(
          "CREATE TABLE typed (seq INTEGER PRIMARY KEY AUTOINCREMENT, at_ms INTEGER NOT NULL, body BLOB, ratio REAL)",
        ),
    };
    await migrateStore(store, [typed]);
    const at = Date.UTC(2100, 0, 1); // past 2^31 and 2^32: int4 would overflow
    await store.run("INSERT INTO typed (at_ms, body, ratio) VALUES (?, ?, ?)", [
      at,
      new Uint8Array([0, 1, 255]),
      0.25,
    ]);
    await store.run("INSERT INTO typed (at_ms) VALUES (?)", [2 ** 53 - 1]);
    const rows = await store.all<{
      seq: number;
      at_ms: number;
      body: Uint8Array | null;
      ratio: number | null;
    }>("SELECT seq, at_ms, body, ratio FROM typed ORDER BY seq");
    expect(rows.map((r) => [r.seq, r.at_ms, r.body && [...r.body], r.ratio])).toEqual([
      [1, at, [0, 1, 255], 0.25],
      [2, 2 ** 53 - 1, null, null],
    ]);
  });
});

describe("the schemas both engines migrate to", () => {
  const shapes: Partial<Record<string, SchemaShape>> = {};
  const tearDowns: (() => Promise<void>)[] = [];
  let postgres: Store;

  beforeAll(async () => {
    for (const engine of ENGINES) {
      const { store, tearDown } = await engine.setUp();
      tearDowns.push(tearDown);
      await migrateStore(store);
      shapes[engine.name] = await readSchemaShape(store);
      if (engine.name === "postgres") postgres = store;
    }
  });
  afterAll(async () => {
    for (const tearDown of tearDowns) await tearDown();
  });

  it("have the same tables", () => {
    expect(Object.keys(shapes.postgres!).sort()).toEqual(Object.keys(shapes.sqlite!).sort());
    expect(Object.keys(shapes.sqlite!).length).toBeGreaterThan(40);
  });

  it("give each table the same columns (name, type family, NOT NULL, default), keys and indexes", () => {
    for (const [table, sqlite] of Object.entries(shapes.sqlite!)) {
      // Compared table by table so a difference names its table.
      expect({ table, ...shapes.postgres![table] }).toEqual({ table, ...sqlite });
    }
  });

  it("declare every integer column 64 bits wide on PostgreSQL (millisecond instants overflow int4)", async () => {
    expect(await narrowIntegerColumns(postgres)).toEqual([]);
  });
});

describe("two PostgreSQL instances starting at once", () => {
  it("both succeed and each version is applied and recorded once", async () => {
    const schema = await freshSchema();
    try {
      const [first, second] = [schema.open(), schema.open()];
      const ran = await Promise.all([migrateStore(first), migrateStore(second)]);
      expect([...ran[0]!, ...ran[1]!].sort((a, b) => a - b)).toEqual(ALL_VERSIONS);
      const counts = await first.all<{ version: number; n: number }>(
        "SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version ORDER BY version",
      );
      expect(counts).toEqual(ALL_VERSIONS.map((version) => ({ version, n: 1 })));
      expect(await migrateStore(second)).toEqual([]);
    } finally {
      await schema.drop();
    }
  });
});
