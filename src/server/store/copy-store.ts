// Copies every table of a SQLite store into an empty PostgreSQL store of the same schema, in one PostgreSQL
// transaction: all of it or nothing. Rows go in multi-row INSERTs in foreign-key order; identity sequences move
// past the copied ids; then both sides are read back (row count and digest per table) before COMMIT, so a copy
// that differs commits nothing. Values are copied as they are stored: sealed secrets stay sealed.
import { BatonError, InputError, RefusedError } from "../../errors.js";
import { checkCopies, type TargetColumns } from "./check-copy.js";
import {
  insertStatement,
  MAX_BATCH_BYTES,
  orderTablesForCopy,
  quoteName,
  rowsPerInsert,
  selectInOrder,
  type TableShape,
} from "./copy-plan.js";
import type { Database } from "./sqlite.js";
import { readSqliteSequences, readSqliteTables } from "./sqlite-tables.js";
import type { SqlValue, Store, Transaction } from "./store.js";

export interface CopyProgress {
  table: string;
  /** Rows copied into this table so far. */
  rows: number;
  /** True on the table's last report. */
  done: boolean;
}

export interface CopyStoreOptions {
  onProgress?: (progress: CopyProgress) => void;
  /** Report a table's progress each time this many more rows are in (default 10,000), and when it is done. */
  progressEvery?: number;
  /** How long to wait for another session's lock on a target table before giving up (default 10 s). */
  lockTimeoutMs?: number;
}

export interface CopyResult {
  /** Every copied table, in the order it was copied, with its rows. */
  tables: { name: string; rows: number }[];
  rows: number;
}

export async function copyStore(
  source: Database,
  target: Store,
  options: CopyStoreOptions = {},
): Promise<CopyResult> {
  if (target.engine !== "postgres") throw new InputError("the copy's target must be a PostgreSQL store");
  // One read transaction: every table is read from the same snapshot, for the copy and for the check alike.
  source.exec("BEGIN");
  try {
    const tables = orderTablesForCopy(readSqliteTables(source));
    const sequences = readSqliteSequences(source);
    return await target.transaction(async (tx) => {
      await tx.run(`SET LOCAL lock_timeout = '${Math.round(options.lockTimeoutMs ?? 10_000)}ms'`);
      await tx.run("SET CONSTRAINTS ALL DEFERRED");
      const columns = await readTargetColumns(tx, tables);
      await claimEmptyTargets(tx, tables);
      const copied: CopyResult["tables"] = [];
      for (const table of tables)
        copied.push({ name: table.name, rows: await copyTable(source, tx, table, options) });
      for (const table of tables) await moveSequences(tx, table, sequences.get(table.name));
      await checkCopies(source, tx, tables, columns);
      return { tables: copied, rows: copied.reduce((sum, table) => sum + table.rows, 0) };
    });
  } finally {
    if (source.isTransaction) source.exec("ROLLBACK");
  }
}

/** The target's columns of each table; throws naming the first table or column the target lacks. */
async function readTargetColumns(tx: Transaction, tables: readonly TableShape[]): Promise<TargetColumns> {
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
async function claimEmptyTargets(tx: Transaction, tables: readonly TableShape[]): Promise<void> {
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

async function copyTable(
  source: Database,
  tx: Transaction,
  table: TableShape,
  options: CopyStoreOptions,
): Promise<number> {
  const every = options.progressEvery ?? 10_000;
  const perInsert = rowsPerInsert(table.columns.length);
  let rows = 0;
  const statement = source.prepare(selectInOrder(table));
  statement.setReadBigInts(true);
  let batch: SqlValue[] = [];
  let batchRows = 0;
  let batchBytes = 0;
  const flush = async () => {
    if (batchRows === 0) return;
    await insertRows(tx, table, batchRows, batch);
    batch = [];
    batchRows = 0;
    batchBytes = 0;
  };
  for (const row of statement.iterate() as Iterable<Record<string, SqlValue>>) {
    // Reported before the next row, so a table of exactly 10,000 rows is not reported twice at 10,000.
    if (rows > 0 && rows % every === 0) options.onProgress?.({ table: table.name, rows, done: false });
    const values = table.columns.map((column) => row[column] ?? null);
    batch.push(...values);
    batchRows += 1;
    rows += 1;
    for (const value of values) {
      batchBytes += typeof value === "string" || value instanceof Uint8Array ? value.length : 8;
    }
    if (batchRows >= perInsert || batchBytes >= MAX_BATCH_BYTES) await flush();
  }
  await flush();
  options.onProgress?.({ table: table.name, rows, done: true });
  return rows;
}

async function insertRows(
  tx: Transaction,
  table: TableShape,
  rows: number,
  values: SqlValue[],
): Promise<void> {
  try {
    await tx.run(insertStatement(table, rows), values);
  } catch (error) {
    throw new BatonError(
      "service_error",
      `PostgreSQL refused the rows of ${table.name}: ${describeRefusal(error)}`,
      {
        cause: error,
        details: { table: table.name },
      },
    );
  }
}

/** The server's reason without any value it quotes (a data error names the offending value; that stays out). */
function describeRefusal(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  const reason = String(message ?? error);
  if (code?.startsWith("22"))
    return `a value does not fit its column (SQLSTATE ${code}: ${reason.split(":")[0]})`;
  return code ? `${reason} (SQLSTATE ${code})` : reason;
}

/**
 * Moves each identity column's sequence past the highest id copied, or past SQLite's AUTOINCREMENT high-water
 * mark when that is higher (ids of deleted rows are never handed out again, on either engine).
 */
async function moveSequences(
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
