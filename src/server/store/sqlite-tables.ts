// Reads what copying needs of a SQLite store's schema: its tables, their columns, primary keys and foreign keys,
// and SQLite's AUTOINCREMENT high-water marks.
import type { TableShape } from "./copy-plan.js";
import { quoteName } from "./copy-plan.js";
import type { Database } from "./sqlite.js";

/** Tables a copy leaves out: the migrations' own record (the target keeps its own) and SQLite's bookkeeping. */
const NOT_COPIED = new Set(["schema_migrations", "sqlite_sequence"]);

interface ColumnInfo {
  name: string;
  pk: number | bigint;
}

export function readSqliteTables(db: Database): TableShape[] {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .all() as { name: string }[];
  return names
    .map((row) => row.name)
    .filter((name) => !NOT_COPIED.has(name))
    .map((name) => {
      const columns = db.prepare(`PRAGMA table_info(${quoteName(name)})`).all() as unknown as ColumnInfo[];
      const primaryKey = columns
        .filter((column) => Number(column.pk) > 0)
        .sort((a, b) => Number(a.pk) - Number(b.pk))
        .map((column) => column.name);
      const keys = db.prepare(`PRAGMA foreign_key_list(${quoteName(name)})`).all() as { table: string }[];
      return {
        name,
        columns: columns.map((column) => column.name),
        primaryKey,
        references: [...new Set(keys.map((key) => key.table))],
      };
    });
}

/** Each AUTOINCREMENT table's highest id ever handed out (it may exceed the highest id still present). */
export function readSqliteSequences(db: Database): Map<string, number> {
  const exists = db
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'")
    .get();
  if (!exists) return new Map();
  const rows = db.prepare("SELECT name, seq FROM sqlite_sequence").all() as { name: string; seq: number }[];
  return new Map(rows.map((row) => [row.name, Number(row.seq)]));
}
