// Where a `baton serve` child of the tests keeps its state, on the engine the suite runs on (test-store.ts):
// a SQLite file (`--db`), or a schema of the test database (`--database-url` with the schema as search_path,
// `--secret-key-file` beside the nominal file path, `--work-dir` in its folder). Tests query it and look for
// canaries in it through the place, whichever engine holds it.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { PostgresStore, quoteIdentifier } from "../../src/server/store/postgres-store.js";
import { loadSqlite } from "../../src/server/store/sqlite.js";
import type { SqlValue, Store } from "../../src/server/store/store.js";
import { migratedSchema } from "./migrated-schemas.js";
import { admin, TEST_DATABASE_URL, type TestSchema } from "./postgres.js";
import { storeOver } from "./sqlite-store.js";
import type { TestEngine } from "./test-store.js";

export interface ServePlace {
  engine: TestEngine;
  /** The SQLite file; on PostgreSQL the path the key file and the work folder sit beside (no file there). */
  dbPath: string;
  /** On PostgreSQL: the URL `baton serve` connects with (the schema as search_path) and the schema. */
  databaseUrl: string | undefined;
  schema: string | undefined;
  /** The flags that point `baton serve` at this place. */
  args: string[];
  /** A store on the service's data (not migrated again); close it after use. */
  openStore(): Promise<Store>;
  /** Every stored byte as text, for "no secret at rest" checks (PostgreSQL's bytea decoded with escapes). */
  dump(): Promise<string>;
}

/** The test database's URL with `schema` as the search_path (`?options=-c search_path=<schema>`). */
export function schemaUrl(schema: string): string {
  return `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/** Schemas startServe made and not yet dropped: dropPlaces (the postgres project's setup file) drops them. */
const made = new Map<string, TestSchema>();

export async function makePlace(
  engine: TestEngine,
  dbPath: string,
  given: {
    databaseUrl?: string | undefined;
    secretKeyFile?: string | undefined;
    workDir?: string | undefined;
  },
): Promise<ServePlace> {
  if (engine === "sqlite") {
    return {
      engine,
      dbPath,
      databaseUrl: undefined,
      schema: undefined,
      args: ["--db", dbPath, ...secretFlags(given)],
      openStore: async () => storeOver(new (await loadSqlite()).DatabaseSync(dbPath)),
      dump: async () => (await Promise.all([dbPath, `${dbPath}-wal`].map(readOrEmpty))).join("\n"),
    };
  }
  // The same nominal path (a second startServe on one `db`, a restart) is the same schema.
  let schema = given.databaseUrl === undefined ? made.get(dbPath)?.schema : undefined;
  if (given.databaseUrl === undefined && schema === undefined) {
    const fresh = await migratedSchema();
    made.set(dbPath, fresh);
    schema = fresh.schema;
  }
  const databaseUrl = given.databaseUrl ?? schemaUrl(schema!);
  const named = schema ?? searchPathOf(databaseUrl);
  return {
    engine,
    dbPath,
    databaseUrl,
    schema: named,
    args: [
      "--database-url",
      databaseUrl,
      "--secret-key-file",
      given.secretKeyFile ?? `${dbPath}.key`,
      "--work-dir",
      given.workDir ?? join(dirname(dbPath), "work"),
    ],
    openStore: async () => new PostgresStore(TEST_DATABASE_URL, { schema: named, poolSize: 2 }),
    dump: () => dumpSchema(named),
  };
}

/** Drops the schema startServe made for `dbPath` (stop() of a service that owns its folder). */
export async function dropPlace(dbPath: string): Promise<void> {
  const schema = made.get(dbPath);
  made.delete(dbPath);
  await schema?.drop();
}

/** Drops every schema startServe made in this test file: call after the file's services stopped. */
export async function dropPlaces(): Promise<void> {
  const schemas = [...made.values()];
  made.clear();
  await Promise.all(schemas.map((schema) => schema.drop().catch(() => {})));
}

/** Runs one query on the service's data and closes the store again. */
export async function queryPlace<Row = Record<string, unknown>>(
  place: ServePlace,
  sql: string,
  params: readonly SqlValue[] = [],
): Promise<Row[]> {
  const store = await place.openStore();
  try {
    return await store.all<Row>(sql, params);
  } finally {
    await store.close();
  }
}

function secretFlags(given: { secretKeyFile?: string | undefined; workDir?: string | undefined }): string[] {
  return [
    ...(given.secretKeyFile ? ["--secret-key-file", given.secretKeyFile] : []),
    ...(given.workDir ? ["--work-dir", given.workDir] : []),
  ];
}

function searchPathOf(url: string): string {
  const options = new URL(url).searchParams.get("options") ?? "";
  const schema = /search_path=(\S+)/.exec(options)?.[1];
  if (!schema) throw new Error(`${url} names no search_path: give startServe a URL made with schemaUrl`);
  return schema;
}

async function readOrEmpty(path: string): Promise<string> {
  return readFile(path)
    .then((bytes) => bytes.toString("latin1"))
    .catch(() => "");
}

export async function dumpSchema(schema: string): Promise<string> {
  const columns = await admin(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1",
    [schema],
  );
  const byTable = new Map<string, string[]>();
  for (const { table_name, column_name, data_type } of columns.rows) {
    const column = quoteIdentifier(column_name);
    const text = data_type === "bytea" ? `encode(${column}, 'escape')` : `${column}::text`;
    byTable.set(table_name, [...(byTable.get(table_name) ?? []), `coalesce(${text}, '')`]);
  }
  const parts: string[] = [];
  for (const [table, texts] of byTable) {
    const rows = await admin(
      `SELECT concat_ws(' ', ${texts.join(", ")}) AS row FROM ${quoteIdentifier(schema)}.${quoteIdentifier(table)}`,
    );
    parts.push(...rows.rows.map((row) => String(row.row)));
  }
  return parts.join("\n");
}
