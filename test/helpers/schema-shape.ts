// The shape of a migrated schema, read from each engine's own catalogue (SQLite's pragmas, PostgreSQL's
// information_schema and pg_catalog) and normalised so the two can be compared: type families instead of type
// names, primary-key columns as NOT NULL (SQLite reports them nullable), indexes and keys by their columns.
import type { Store } from "../../src/server/store/store.js";

export interface ColumnShape {
  name: string;
  /** text, integer, bytes or real; anything else as `other:<declared type>`, so it shows in a diff. */
  family: string;
  notNull: boolean;
  hasDefault: boolean;
}

export interface TableShape {
  columns: ColumnShape[];
  primaryKey: string[];
  /** `unique partial (a,b)`-style descriptions, sorted; the primary key's own index is left out. */
  indexes: string[];
  /** `(a,b) -> table(c,d)`, sorted. */
  foreignKeys: string[];
}

export type SchemaShape = Record<string, TableShape>;

const FAMILY: Record<string, string> = {
  TEXT: "text",
  INTEGER: "integer",
  BLOB: "bytes",
  REAL: "real",
  text: "text",
  bigint: "integer",
  integer: "integer",
  smallint: "integer",
  bytea: "bytes",
  "double precision": "real",
  real: "real",
};

const familyOf = (type: string): string => FAMILY[type] ?? `other:${type}`;

const describeIndex = (unique: boolean, partial: boolean, columns: string) =>
  `${unique ? "unique " : ""}${partial ? "partial " : ""}(${columns})`;

export async function readSchemaShape(store: Store): Promise<SchemaShape> {
  return store.engine === "sqlite" ? readSqlite(store) : readPostgres(store);
}

async function readSqlite(store: Store): Promise<SchemaShape> {
  const tables = await store.all<{ name: string }>(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const shape: SchemaShape = {};
  for (const { name: table } of tables) {
    const info = await store.all<{
      name: string;
      type: string;
      notnull: number;
      dflt_value: unknown;
      pk: number;
    }>('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid', [table]);
    const primaryKey = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const indexes: string[] = [];
    const list = await store.all<{ name: string; unique: number; origin: string; partial: number }>(
      'SELECT name, "unique", origin, partial FROM pragma_index_list(?)',
      [table],
    );
    for (const index of list.filter((i) => i.origin !== "pk")) {
      const columns = await store.all<{ name: string }>(
        "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
        [index.name],
      );
      indexes.push(
        describeIndex(index.unique === 1, index.partial === 1, columns.map((c) => c.name).join(",")),
      );
    }
    const keys = await store.all<{ id: number; seq: number; table: string; from: string; to: string | null }>(
      'SELECT id, seq, "table", "from", "to" FROM pragma_foreign_key_list(?) ORDER BY id, seq',
      [table],
    );
    const byId = new Map<number, { target: string; from: string[]; to: string[] }>();
    for (const key of keys) {
      const entry = byId.get(key.id) ?? { target: key.table, from: [], to: [] };
      entry.from.push(key.from);
      entry.to.push(key.to ?? "(primary key)");
      byId.set(key.id, entry);
    }
    shape[table] = {
      columns: info.map((c) => ({
        name: c.name,
        family: familyOf(c.type),
        notNull: c.notnull === 1 || c.pk > 0,
        hasDefault: c.dflt_value !== null,
      })),
      primaryKey,
      indexes: indexes.sort(),
      foreignKeys: [...byId.values()]
        .map((k) => `(${k.from.join(",")}) -> ${k.target}(${k.to.join(",")})`)
        .sort(),
    };
  }
  return shape;
}

const COLUMNS_OF = (keys: string, relation: string) => `(SELECT string_agg(a.attname::text, ',' ORDER BY k.n)
  FROM unnest(${keys}::int2[]) WITH ORDINALITY AS k(attnum, n)
  JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = k.attnum)`;

async function readPostgres(store: Store): Promise<SchemaShape> {
  const tables = await store.all<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const shape: SchemaShape = {};
  for (const { name: table } of tables) {
    const columns = await store.all<{ name: string; type: string; nullable: string; dflt: string | null }>(
      `SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt
       FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?
       ORDER BY ordinal_position`,
      [table],
    );
    const indexes = await store.all<{ primary: boolean; unique: boolean; partial: boolean; columns: string }>(
      `SELECT i.indisprimary AS "primary", i.indisunique AS "unique", i.indpred IS NOT NULL AS partial,
         ${COLUMNS_OF("i.indkey", "i.indrelid")} AS columns
       FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
       WHERE ns.nspname = current_schema() AND t.relname = ?`,
      [table],
    );
    const keys = await store.all<{ target: string; from_columns: string; to_columns: string }>(
      `SELECT f.relname AS target, ${COLUMNS_OF("c.conkey", "c.conrelid")} AS from_columns,
         ${COLUMNS_OF("c.confkey", "c.confrelid")} AS to_columns
       FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
       JOIN pg_class f ON f.oid = c.confrelid
       WHERE c.contype = 'f' AND ns.nspname = current_schema() AND t.relname = ?`,
      [table],
    );
    const primary = indexes.find((i) => i.primary);
    shape[table] = {
      columns: columns.map((c) => ({
        name: c.name,
        family: familyOf(c.type),
        notNull: c.nullable === "NO",
        hasDefault: c.dflt !== null,
      })),
      primaryKey: primary ? primary.columns.split(",") : [],
      indexes: indexes
        .filter((i) => !i.primary)
        .map((i) => describeIndex(i.unique, i.partial, i.columns))
        .sort(),
      foreignKeys: keys.map((k) => `(${k.from_columns}) -> ${k.target}(${k.to_columns})`).sort(),
    };
  }
  return shape;
}

/** PostgreSQL columns typed int4 or int2, which would overflow on a millisecond instant past 2^31. */
export async function narrowIntegerColumns(store: Store): Promise<string[]> {
  const rows = await store.all<{ name: string }>(
    `SELECT table_name || '.' || column_name AS name FROM information_schema.columns
     WHERE table_schema = current_schema() AND data_type IN ('integer', 'smallint') ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}
