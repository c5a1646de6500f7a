// Migrated PostgreSQL schemas for the tests' stores and services, reused within a test file. Migrating a fresh
// schema costs about half a second of PostgreSQL's time (50 tables and their indexes), and most service suites
// open a store per test: a schema a test gives back is kept, and the next test gets it with every row deleted and
// every identity restarted, which costs tens of milliseconds. A schema whose shape a test changed (a table, a
// column, an index, a migration row) is dropped instead. The spares are dropped when the file ends
// (postgres-setup.ts), so nothing outlives the file that made it.
import pg from "pg";
import { migrateStore } from "../../src/server/store/migrate.js";
import { quoteIdentifier } from "../../src/server/store/postgres-store.js";
import { dropSchema, freshSchema, schemaHandle, TEST_DATABASE_URL, type TestSchema } from "./postgres.js";

/** What a schema holds right after the migrations, and how to bring a used one back to it. */
interface MigratedShape {
  fingerprint: string;
  /** Tables in an order that deletes referencing rows before the rows they reference. */
  deleteOrder: string[];
  /** Identity columns, restarted so a reused schema numbers its rows as a fresh one does. */
  identities: { table: string; column: string }[];
}

/** Schemas given back by this file's tests, named; each still holds the rows its last test left. */
const spares: string[] = [];
let shapeOnce: Promise<MigratedShape> | undefined;

/**
 * A schema at the latest migration with no rows but the migrations' own: a spare of this file cleaned, or a
 * fresh one migrated. `drop()` gives it back for the next test (or drops it, when its shape changed).
 */
export async function migratedSchema(): Promise<TestSchema> {
  const schema = (await takeSpare()) ?? (await migrateFresh());
  return schemaHandle(schema, async (given) => {
    spares.push(given);
  });
}

/** Drops the spares of this file: call when its tests and services are done. */
export async function dropSpareSchemas(): Promise<void> {
  const names = spares.splice(0);
  await Promise.all(names.map((name) => dropSchema(name).catch(() => {})));
}

async function migrateFresh(): Promise<string> {
  const fresh = await freshSchema();
  const store = fresh.open({ poolSize: 1 });
  try {
    await migrateStore(store);
  } finally {
    await store.close();
  }
  shapeOnce ??= readShape(fresh.schema);
  return fresh.schema;
}

/** A spare brought back to the migrated state, or undefined when there is none (or none that can be). */
async function takeSpare(): Promise<string | undefined> {
  const shape = shapeOnce === undefined ? undefined : await shapeOnce;
  if (shape === undefined) return undefined;
  while (spares.length > 0) {
    const name = spares.pop()!;
    if (await clean(name, shape)) return name;
    await dropSchema(name).catch(() => {});
  }
  return undefined;
}

/** Deletes every row a test left and restarts the identities; false when the schema's shape is not the migrated one. */
async function clean(name: string, shape: MigratedShape): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    if ((await fingerprint(client, name)) !== shape.fingerprint) return false;
    const q = quoteIdentifier(name);
    const probe = shape.deleteOrder
      .map((table, i) => `SELECT ${i} AS i WHERE EXISTS (SELECT 1 FROM ${q}.${quoteIdentifier(table)})`)
      .join(" UNION ALL ");
    const filled = new Set((await client.query<{ i: number }>(probe)).rows.map((row) => row.i));
    const deletes = shape.deleteOrder
      .filter((_, i) => filled.has(i))
      .map((table) => `DELETE FROM ${q}.${quoteIdentifier(table)};`);
    const restarts = shape.identities.map(
      ({ table, column }) =>
        `ALTER TABLE ${q}.${quoteIdentifier(table)} ALTER COLUMN ${quoteIdentifier(column)} RESTART WITH 1;`,
    );
    await client.query(["BEGIN;", ...deletes, ...restarts, "COMMIT;"].join("\n"));
    return true;
  } finally {
    await client.end();
  }
}

async function readShape(name: string): Promise<MigratedShape> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    const tables = (
      await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' " +
          "AND table_name <> 'schema_migrations' ORDER BY table_name",
        [name],
      )
    ).rows.map((row) => row.table_name);
    const references = (
      await client.query<{ referencing: string; referenced: string }>(
        "SELECT c.relname AS referencing, r.relname AS referenced FROM pg_constraint k " +
          "JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid " +
          "WHERE k.contype = 'f' AND k.connamespace = $1::regnamespace",
        [name],
      )
    ).rows;
    const identities = (
      await client.query<{ table_name: string; column_name: string }>(
        "SELECT table_name, column_name FROM information_schema.columns " +
          "WHERE table_schema = $1 AND is_identity = 'YES' ORDER BY table_name, column_name",
        [name],
      )
    ).rows.map((row) => ({ table: row.table_name, column: row.column_name }));
    return {
      fingerprint: await fingerprint(client, name),
      deleteOrder: referencingFirst(tables, references),
      identities,
    };
  } finally {
    await client.end();
  }
}

/** The schema's tables, columns, indexes, constraints and other objects, and the migrations it records. */
async function fingerprint(client: pg.Client, name: string): Promise<string> {
  const q = quoteIdentifier(name);
  const { rows } = await client.query<Record<string, string | null>>(
    `SELECT
      (SELECT string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':' ||
         coalesce(column_default, ''), ',' ORDER BY table_name, column_name)
         FROM information_schema.columns WHERE table_schema = $1) AS columns,
      (SELECT string_agg(relname || ':' || relkind::text, ',' ORDER BY relname)
         FROM pg_class WHERE relnamespace = $1::regnamespace) AS relations,
      (SELECT string_agg(conname || ':' || contype::text, ',' ORDER BY conname)
         FROM pg_constraint WHERE connamespace = $1::regnamespace) AS constraints,
      (SELECT count(*)::text FROM pg_proc WHERE pronamespace = $1::regnamespace) AS functions,
      (SELECT string_agg(version::text || ':' || name, ',' ORDER BY version) FROM ${q}.schema_migrations) AS migrations`,
    [name],
  );
  return JSON.stringify(rows[0]);
}

/** Orders `tables` so each comes before the tables it references (a self-reference does not count). */
function referencingFirst(
  tables: string[],
  references: { referencing: string; referenced: string }[],
): string[] {
  const ordered: string[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const referencedBy = new Map<string, string[]>();
  for (const { referencing, referenced } of references) {
    if (referencing === referenced) continue;
    referencedBy.set(referenced, [...(referencedBy.get(referenced) ?? []), referencing]);
  }
  // Depth first over "is referenced by": the tables referencing a table are placed before it.
  const visit = (table: string) => {
    if (placed.has(table) || visiting.has(table)) return;
    visiting.add(table);
    for (const referencing of referencedBy.get(table) ?? []) visit(referencing);
    visiting.delete(table);
    placed.add(table);
    ordered.push(table);
  };
  for (const table of tables) visit(table);
  return ordered;
}
