// The SQLite engine behind the store interface: one `node:sqlite` connection, whose calls are synchronous and
// so finish before anything else runs. Transactions queue and commit in groups: those that arrive while one is
// being written run next, each in its own savepoint of one shared transaction, so many requests share one
// synchronous=FULL fsync (a piece that fails rolls back only itself, as if it had a transaction of its own).
// While a group is open, single statements outside it wait for its end: nothing reads what is not committed.
import { AsyncLocalStorage } from "node:async_hooks";
import { EventEmitter } from "node:events";
import type { Database } from "./sqlite.js";
import { statement } from "./statements.js";
import type { Dialect, RunResult, SqlValue, Store, Transaction } from "./store.js";

const SQLITE_DIALECT: Dialect = { skipLocked: "", jsonArrayValues: "SELECT value FROM json_each(?)" };

interface QueuedTransaction {
  work: (tx: Transaction) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class SqliteStore implements Store {
  readonly engine = "sqlite" as const;
  readonly dialect = SQLITE_DIALECT;
  private readonly notifications = new EventEmitter();
  private queue: QueuedTransaction[] = [];
  /** Set while a group of transactions holds the connection; single statements wait for it. */
  private writing: Promise<void> | undefined;
  private closed = false;
  /** The transaction the calling code runs in; `open` turns false when it ends. */
  private readonly ambient = new AsyncLocalStorage<{ tx: Transaction; open: boolean }>();

  constructor(readonly db: Database) {
    this.notifications.setMaxListeners(0);
  }

  async get<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row | undefined> {
    if (this.writing && !this.inside()) await this.idle();
    return this.getNow<Row>(sql, params);
  }

  async all<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    if (this.writing && !this.inside()) await this.idle();
    return this.allNow<Row>(sql, params);
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    if (this.writing && !this.inside()) await this.idle();
    return this.runNow(sql, params);
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) return work(outer);
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.writing) this.writing = this.writeGroups();
    });
  }

  current(): Transaction | undefined {
    const context = this.ambient.getStore();
    return context?.open ? context.tx : undefined;
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    this.notifications.on(channel, onNotify);
    return async () => {
      this.notifications.off(channel, onNotify);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.writing) await this.idle();
    this.notifications.removeAllListeners();
  }

  private inside(): boolean {
    return this.ambient.getStore()?.open === true;
  }

  private async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private getNow<Row>(sql: string, params: readonly SqlValue[]): Row | undefined {
    return statement(this.db, sql).get(...params) as Row | undefined;
  }

  private allNow<Row>(sql: string, params: readonly SqlValue[]): Row[] {
    return statement(this.db, sql).all(...params) as Row[];
  }

  private runNow(sql: string, params: readonly SqlValue[]): RunResult {
    return { changes: Number(statement(this.db, sql).run(...params).changes) };
  }

  /** Writes queued transactions, a group per round, until none is left; clears `writing` when done. */
  private async writeGroups(): Promise<void> {
    // Let the transactions of this event-loop turn join the first group.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const group = this.queue;
        this.queue = [];
        await this.writeGroup(group);
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async writeGroup(group: QueuedTransaction[]): Promise<void> {
    const outcomes: ({ ok: true; value: unknown; notices: Notice[] } | { ok: false; error: unknown })[] = [];
    try {
      this.runNow("BEGIN IMMEDIATE", []);
    } catch (error) {
      for (const item of group) item.reject(error);
      return;
    }
    try {
      for (const item of group) {
        const notices: Notice[] = [];
        this.runNow("SAVEPOINT store_item", []);
        const context = { tx: this.transactionFor(notices), open: true };
        try {
          const value = await this.ambient.run(context, () => item.work(context.tx));
          this.runNow("RELEASE store_item", []);
          outcomes.push({ ok: true, value, notices });
        } catch (error) {
          this.runNow("ROLLBACK TO store_item", []);
          this.runNow("RELEASE store_item", []);
          outcomes.push({ ok: false, error });
        } finally {
          context.open = false;
        }
      }
      this.runNow("COMMIT", []);
    } catch (error) {
      // The store itself failed (I/O, disk full): nothing of the group is durable, so every piece fails.
      if (this.db.isTransaction) this.runNow("ROLLBACK", []);
      for (const item of group) item.reject(error);
      return;
    }
    group.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        item.reject(outcome.error);
        return;
      }
      for (const notice of outcome.notices) this.notifications.emit(notice.channel, notice.payload);
      item.resolve(outcome.value);
    });
  }

  private transactionFor(notices: Notice[]): Transaction {
    return {
      get: async (sql, params = []) => this.getNow(sql, params),
      all: async (sql, params = []) => this.allNow(sql, params),
      run: async (sql, params = []) => this.runNow(sql, params),
      lock: async () => {},
      notify: (channel, payload = "") => {
        notices.push({ channel, payload });
      },
    };
  }
}

interface Notice {
  channel: string;
  payload: string;
}
