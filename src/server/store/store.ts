// The store's asynchronous interface: the one way the domain reaches its rows, whichever engine holds them
// (SQLite in one file, the embedded default; PostgreSQL for several instances). Queries are written once in the
// SQL both engines speak, with `?` placeholders: no `rowid`, no `INSERT OR …` (use `ON CONFLICT`), booleans as
// 0/1 integers, times as ISO text or integer milliseconds, JSON as text. Where the engines must differ the
// caller asks `store.dialect`.

/** A value a query takes or returns. Integers up to 2^53 come back as numbers on both engines. */
export type SqlValue = string | number | bigint | null | Uint8Array;

export interface RunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
}

/** What a transaction and the store itself can run. */
export interface Queryable {
  get<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row | undefined>;
  all<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<RunResult>;
}

export interface Transaction extends Queryable {
  /**
   * Serialises this transaction with every other one holding the same key, on any instance, until it ends
   * (PostgreSQL: a transaction-scoped advisory lock; SQLite: a no-op, as its write transactions already run
   * one at a time). Take keys in one order to stay clear of deadlocks.
   */
  lock(key: string): Promise<void>;
  /** Wakes the listeners of `channel` on every instance once this transaction commits; nothing on rollback. */
  notify(channel: string, payload?: string): void;
}

export type Engine = "sqlite" | "postgres";

/** The SQL fragments that differ between the engines. */
export interface Dialect {
  /** Appended to a claim's inner SELECT: PostgreSQL skips rows another transaction holds; SQLite needs none. */
  readonly skipLocked: string;
  /**
   * A sub-select of the strings in a JSON array bound to its one `?` (a text parameter), for `x IN (…)`: SQLite
   * `json_each`, PostgreSQL `json_array_elements_text`.
   */
  readonly jsonArrayValues: string;
}

export interface TransactionOptions {
  /**
   * PostgreSQL's isolation level (default `read committed`, with `lock` and row locks where a rule needs order).
   * `serializable` transactions that conflict are retried from the start, so `work` must have no effect
   * outside the store. SQLite runs every write transaction alone, serializable by construction.
   */
  isolation?: "read committed" | "serializable";
  /**
   * PostgreSQL: false commits without waiting for the WAL's flush (`synchronous_commit = off` for this
   * transaction alone; a crash may lose it, never half of it), set in the same round trip as BEGIN. For writes
   * whose loss costs little, such as a rate limit's hit. SQLite ignores it.
   */
  synchronousCommit?: boolean;
}

export interface Store extends Queryable {
  readonly engine: Engine;
  readonly dialect: Dialect;
  /**
   * Runs `work` in one transaction and commits it when `work` resolves, or rolls it back and rethrows when it
   * rejects. The transaction is ambient: every call on this store made from within `work` (through `tx` or
   * through the store itself, however deep) runs inside it, and a `transaction` started within joins it. Await
   * only store calls inside `work`, and start no background work there: the transaction holds the write lock
   * (SQLite) or a connection (PostgreSQL) until it ends.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * The transaction the calling code runs in (see `transaction`), for `lock` and `notify` deep in the domain;
   * undefined outside one.
   */
  current(): Transaction | undefined;
  /** Calls `onNotify` for each notification on `channel` from any instance; resolves to a function that stops. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
