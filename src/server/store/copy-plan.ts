// The pure half of copying a store from one engine to another: which table goes first (foreign keys), how many
// rows one INSERT carries, and the SQL texts. No I/O here; copy-store.ts runs them.
import { InputError } from "../../errors.js";

/** One table as the source describes it. */
export interface TableShape {
  name: string;
  /** Every column, in the source's order. */
  columns: readonly string[];
  /** The primary key's columns in key order; empty for a table without one. */
  primaryKey: readonly string[];
  /** The tables this one's foreign keys point at. */
  references: readonly string[];
}

/** PostgreSQL takes at most 65,535 parameters in one statement; stay well under it. */
const MAX_PARAMETERS = 30_000;
const MAX_ROWS_PER_INSERT = 1_000;
/** A batch is flushed early once its values pass this many bytes, so a table of large texts stays within memory. */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * The tables in an order where every table comes after those its foreign keys point at (Kahn's algorithm; ties
 * by name, so the order is the same every run). A reference to itself or to a table outside the list imposes
 * nothing. Throws naming the tables when references go round in a circle.
 */
export function orderTablesForCopy(tables: readonly TableShape[]): TableShape[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const waitingOn = new Map<string, Set<string>>();
  for (const table of tables) {
    const needs = table.references.filter((name) => name !== table.name && byName.has(name));
    waitingOn.set(table.name, new Set(needs));
  }
  const ordered: TableShape[] = [];
  while (waitingOn.size > 0) {
    const ready = [...waitingOn].filter(([, needs]) => needs.size === 0).map(([name]) => name);
    if (ready.length === 0) {
      const circle = [...waitingOn.keys()].sort().join(", ");
      throw new InputError(`the foreign keys of these tables go round in a circle: ${circle}`);
    }
    ready.sort();
    for (const name of ready) {
      waitingOn.delete(name);
      ordered.push(byName.get(name)!);
    }
    for (const needs of waitingOn.values()) for (const name of ready) needs.delete(name);
  }
  return ordered;
}

/** How many rows one multi-row INSERT of a table with `columnCount` columns carries. */
export function rowsPerInsert(columnCount: number): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / Math.max(1, columnCount))));
}

export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * One INSERT of `rowCount` rows with `?` placeholders. OVERRIDING SYSTEM VALUE keeps the source's values in
 * identity columns (PostgreSQL ignores it for a table without one).
 */
export function insertStatement(table: TableShape, rowCount: number): string {
  const columns = table.columns.map(quoteName).join(", ");
  const row = `(${table.columns.map(() => "?").join(", ")})`;
  const rows = Array.from({ length: rowCount }, () => row).join(", ");
  return `INSERT INTO ${quoteName(table.name)} (${columns}) OVERRIDING SYSTEM VALUE VALUES ${rows}`;
}

/**
 * The ORDER BY both engines read a table in for its digest: the primary key, or every column when there is
 * none. Text sorts by its bytes on both (SQLite's BINARY collation; PostgreSQL's "C", given for the columns in
 * `textColumns`), and NULL first as SQLite puts it.
 */
export function readOrder(table: TableShape, textColumns: ReadonlySet<string> = new Set()): string {
  const keys = table.primaryKey.length > 0 ? table.primaryKey : table.columns;
  return keys
    .map((column) => `${quoteName(column)}${textColumns.has(column) ? ' COLLATE "C"' : ""} ASC NULLS FIRST`)
    .join(", ");
}

export function selectInOrder(table: TableShape, textColumns?: ReadonlySet<string>): string {
  const columns = table.columns.map(quoteName).join(", ");
  return `SELECT ${columns} FROM ${quoteName(table.name)} ORDER BY ${readOrder(table, textColumns)}`;
}
