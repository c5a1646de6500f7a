// The PostgreSQL side of a store copy, around the rows themselves: the target's columns (it must have every
// table and column the source has), the claim on its tables (locked, and refused unless empty), and its identity
// sequences moved past the copied ids afterwards.
import { InputError, RefusedError } from "../../errors.js";
import type { TargetColumns } from "./check-copy.js";
import { quoteName, type TableShape } from "./copy-plan.js";
import type { Transaction } from "./store.js";

/** The target's columns of each table; throws naming the first table or column the target lacks. */
export async function readTargetColumns(
  tx: Transaction,
  tables: readonly TableShape[],
): Promise<TargetColumns> {
  const rows = await tx.all<{ table_name: string; column_name: string; data_type: string }>(
    "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema()",
  );
  const columns: TargetColumns = new Map();
  for (const row of rows) {
    const table = columns.get(row.table_name) ?? new Map<string, string>();
    table.set(row.column_name, row.data_type);
    columns.set(row.table_name, table);
  }
  for (const table of tables) {
    const target = columns.get(table.name);
    const missing = target ? table.columns.find((column) => !target.has(column)) : undefined;
    if (!target || missing !== undefined) {
      const what = target ? `column ${table.name}.${missing}` : `table ${table.name}`;
      throw new InputError(
        `the PostgreSQL store has no ${what}: its schema is not this build's (is it migrated by another version of baton?)`,
      );
    }
  }
  return columns;
}

/** Locks every target table against writers until COMMIT, and refuses when any already holds a row. */
export async function claimEmptyTargets(tx: Transaction, tables: readonly TableShape[]): Promise<void> {
  if (tables.length === 0) return;
  await tx.run(`LOCK TABLE ${tables.map((table) => quoteName(table.name)).join(", ")} IN EXCLUSIVE MODE`);
  for (const table of tables) {
    if (await tx.get(`SELECT 1 FROM ${quoteName(table.name)} LIMIT 1`)) {
      throw new RefusedError(
        `the PostgreSQL store already holds rows in ${table.name}; migrate-store copies only into an empty store and never overwrites or merges: give it a new database or schema`,
        { details: { table: table.name } },
      );
    }
  }
}

/**
 * Moves each identity column's sequence past the highest id copied, or past SQLite's AUTOINCREMENT high-water
 * mark when that is higher (ids of deleted rows are never handed out again, on either engine).
 */
export async function moveSequences(
  tx: Transaction,
  table: TableShape,
  highWater: number | undefined,
): Promise<void> {
  const owned = await tx.all<{ column_name: string; sequence: string | null }>(
    "SELECT column_name, pg_get_serial_sequence(quote_ident(?), column_name) AS sequence FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?",
    [table.name, table.name],
  );
  for (const { column_name: column, sequence } of owned) {
    if (!sequence) continue;
    const max = await tx.get<{ max: number | null }>(
      `SELECT max(${quoteName(column)}) AS max FROM ${quoteName(table.name)}`,
    );
    const isRowId = table.primaryKey.length === 1 && table.primaryKey[0] === column;
    const next = Math.max(Number(max?.max ?? 0), isRowId ? (highWater ?? 0) : 0);
    if (next > 0) await tx.get("SELECT setval(?::regclass, ?)", [sequence, next]);
  }
}
