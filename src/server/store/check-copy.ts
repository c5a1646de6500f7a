// Reads each copied table back from both stores (PostgreSQL inside the copy's own transaction, SQLite in the
// copy's read snapshot) and compares row count and digest: any table that differs fails the copy, and so
// rolls all of it back.
import { BatonError } from "../../errors.js";
import { selectInOrder, type TableShape } from "./copy-plan.js";
import { RowDigest } from "./row-digest.js";
import type { Database } from "./sqlite.js";
import type { Transaction } from "./store.js";

/** Per table, its columns' PostgreSQL data types (information_schema's names). */
export type TargetColumns = Map<string, Map<string, string>>;

const TEXT_TYPES = new Set(["text", "character varying", "character"]);
const CURSOR = "baton_copy_check";
const FETCH_ROWS = 2_000;

export async function checkCopies(
  sourceDb: Database,
  tx: Transaction,
  tables: readonly TableShape[],
  columns: TargetColumns,
): Promise<void> {
  const differing: string[] = [];
  for (const table of tables) {
    const source = digestSource(sourceDb, table);
    const copied = await digestTarget(tx, table, columns.get(table.name) ?? new Map());
    if (source.rows !== copied.rows) {
      differing.push(`${table.name} (${source.rows} rows in SQLite, ${copied.rows} in PostgreSQL)`);
    } else if (source.digest !== copied.digest) {
      differing.push(`${table.name} (the same ${copied.rows} rows, but their values differ)`);
    }
  }
  if (differing.length > 0) {
    throw new BatonError(
      "check_failed",
      `the copy read back differs from the SQLite store in ${differing.join(", ")}; nothing was committed. The PostgreSQL schema may not match this build's: report it with both versions`,
      { details: { tables: differing } },
    );
  }
}

/** The source's rows of `table` in primary-key order (SQLite's BINARY collation: text by its bytes). */
function digestSource(db: Database, table: TableShape): { rows: number; digest: string } {
  const digest = new RowDigest();
  const statement = db.prepare(selectInOrder(table));
  statement.setReadBigInts(true);
  for (const row of statement.iterate() as Iterable<Record<string, unknown>>) {
    digest.add(table.columns.map((column) => row[column]));
  }
  return digest.finish();
}

/** The target's rows of `table` in the source's order (text by bytes, as SQLite sorts it), through a cursor. */
async function digestTarget(
  tx: Transaction,
  table: TableShape,
  types: ReadonlyMap<string, string>,
): Promise<{ rows: number; digest: string }> {
  const text = new Set([...types].filter(([, type]) => TEXT_TYPES.has(type)).map(([column]) => column));
  const digest = new RowDigest();
  await tx.run(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${selectInOrder(table, text)}`);
  for (;;) {
    const rows = await tx.all<Record<string, unknown>>(`FETCH FORWARD ${FETCH_ROWS} FROM ${CURSOR}`);
    for (const row of rows) digest.add(table.columns.map((column) => row[column]));
    if (rows.length < FETCH_ROWS) break;
  }
  // Not in a finally: after a failed FETCH the transaction is aborted and only its rollback is left to run.
  await tx.run(`CLOSE ${CURSOR}`);
  return digest.finish();
}
