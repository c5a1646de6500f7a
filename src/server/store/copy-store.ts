// Copies every table of a SQLite store into an empty PostgreSQL store of the same schema, in one PostgreSQL
// transaction: all of it or nothing. Rows go in multi-row INSERTs in foreign-key order; identity sequences move
// past the copied ids; then both sides are read back (row count and digest per table) before COMMIT, so a copy
// that differs commits nothing. Values are copied as they are stored: sealed secrets stay sealed.
import { BatonError, InputError } from "../../errors.js";
import { checkCopies } from "./check-copy.js";
import {
  insertStatement,
  MAX_BATCH_BYTES,
  orderTablesForCopy,
  rowsPerInsert,
  selectInOrder,
  type TableShape,
} from "./copy-plan.js";
import { claimEmptyTargets, moveSequences, readTargetColumns } from "./copy-target.js";
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
