// The PostgreSQL engine behind the store interface (`baton serve --database-url`): a `pg` pool for queries and
// transactions, and one connection of its own for LISTEN that reconnects when it drops. Integers (int8 too)
// come back as numbers, bytea as bytes, so rows look the same as SQLite's.

import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import pRetry, { AbortError } from "p-retry";
import pg from "pg";
import { numberPlaceholders } from "./placeholders.js";
import type { Dialect, RunResult, SqlValue, Store, Transaction, TransactionOptions } from "./store.js";

const POSTGRES_DIALECT: Dialect = {
  skipLocked: " FOR UPDATE SKIP LOCKED",
  jsonArrayValues: "SELECT json_array_elements_text(?::json)",
};

/** SQLSTATEs after which a transaction may simply run again: serialization failure, deadlock. */
const RETRYABLE = new Set(["40001", "40P01"]);
const OID_INT8 = 20;
const MAX_CHANNEL_BYTES = 63;
const OID_NUMERIC = 1700;

export interface PostgresStoreOptions {
  /** Connections in the query pool (default 10). */
  poolSize?: number;
  /**
   * The schema the store's tables live in (default: the role's search path). Tests give each suite its own;
   * notification channels are named within it, so two schemas in one database never wake each other.
   */
  schema?: string;
  /** How long to wait between attempts to restore the LISTEN connection (default 500 ms). */
  reconnectDelayMs?: number;
  /** Told when a committed transaction's notifications could not be sent (its waiters then wake by polling). */
  onNotifyError?: (error: unknown) => void;
  /** Told when the LISTEN connection drops or fails to come back (the engine keeps trying). */
  onListenError?: (error: unknown) => void;
}

interface Notice {
  channel: string;
  payload: string;
}

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === OID_INT8) return (value: string) => toNumber(value);
    if (oid === OID_NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

function toNumber(text: string): number | bigint {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
}

function toParams(params: readonly SqlValue[]): unknown[] {
  return params.map((value) => (typeof value === "bigint" ? value.toString() : value));
}

/** Statements PostgreSQL can prepare (not BEGIN, SAVEPOINT, DDL, LISTEN…). */
const PREPARABLE = /^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i;
/** The domain's SQL is a fixed set of texts; past this many (texts built per call), statements go unprepared. */
const MAX_PREPARED = 2000;
const preparedNames = new Map<string, string | null>();

/**
 * The query as node-postgres takes it: `?` numbered, and a name for a statement PostgreSQL can prepare, so each
 * connection parses and plans it once instead of at every call (most of the server's CPU per activation went
 * to that). The name is the text's hash: the same text has the same name on every connection.
 */
function queryOf(sql: string, params: readonly SqlValue[]): pg.QueryConfig {
  const text = numberPlaceholders(sql);
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED) {
    name = PREPARABLE.test(text) ? `b${createHash("sha1").update(text).digest("hex").slice(0, 20)}` : null;
    preparedNames.set(text, name);
  }
  return name ? { name, text, values: toParams(params) } : { text, values: toParams(params) };
}

export class PostgresStore implements Store {
  readonly engine = "postgres" as const;
  readonly dialect = POSTGRES_DIALECT;
  private readonly pool: pg.Pool;
  private readonly listener: Listener;
  /** The transaction the calling code runs in; `open` turns false when it ends. */
  private readonly ambient = new AsyncLocalStorage<{ tx: Transaction; open: boolean }>();

  constructor(
    readonly url: string,
    private readonly options: PostgresStoreOptions = {},
  ) {
    const config: pg.PoolConfig = { connectionString: url, max: options.poolSize ?? 10, types };
    if (options.schema) config.options = `-c search_path=${quoteIdentifier(options.schema)}`;
    this.pool = new pg.Pool(config);
    // An idle connection that the server drops emits here; the pool replaces it on the next query.
    this.pool.on("error", () => {});
    this.listener = new Listener(config, options);
  }

  /** Checks the server answers (a clear error at start instead of at the first request). */
  async ping(): Promise<void> {
    await this.pool.query("SELECT 1");
  }

  async get<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row | undefined> {
    const tx = this.current();
    if (tx) return tx.get<Row>(sql, params);
    const result = await this.pool.query(queryOf(sql, params));
    return result.rows[0] as Row | undefined;
  }

  async all<Row>(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
    const tx = this.current();
    if (tx) return tx.all<Row>(sql, params);
    const result = await this.pool.query(queryOf(sql, params));
    return result.rows as Row[];
  }

  async run(sql: string, params: readonly SqlValue[] = []): Promise<RunResult> {
    const tx = this.current();
    if (tx) return tx.run(sql, params);
    const result = await this.pool.query(queryOf(sql, params));
    return { changes: result.rowCount ?? 0 };
  }

  transaction<T>(work: (tx: Transaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const outer = this.current();
    if (outer) return work(outer);
    let begin = options.isolation === "serializable" ? "BEGIN ISOLATION LEVEL SERIALIZABLE" : "BEGIN";
    // One simple-protocol query, so one round trip, for both statements.
    if (options.synchronousCommit === false) begin += "; SET LOCAL synchronous_commit TO OFF";
    return pRetry(
      async () => {
        try {
          return await this.attempt(begin, work);
        } catch (error) {
          if (RETRYABLE.has((error as { code?: string }).code ?? "")) throw error;
          throw new AbortError(error instanceof Error ? error : new Error(String(error)));
        }
      },
      { retries: 8, minTimeout: 5, maxTimeout: 200, randomize: true },
    );
  }

  current(): Transaction | undefined {
    const context = this.ambient.getStore();
    return context?.open ? context.tx : undefined;
  }

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    return this.listener.add(this.channelName(channel), onNotify);
  }

  async close(): Promise<void> {
    await this.listener.close();
    await this.pool.end();
  }

  private async attempt<T>(begin: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const notices: Notice[] = [];
    // Keys this transaction holds: a transaction-scoped advisory lock is held to the end, so taking it again
    // changes nothing but costs a round trip (a task start takes its workspace's slots lock three times).
    const held = new Set<string>();
    let broken = false;
    try {
      await client.query(begin);
      const tx: Transaction = {
        get: async (sql, params = []) => (await client.query(queryOf(sql, params))).rows[0] as never,
        all: async (sql, params = []) => (await client.query(queryOf(sql, params))).rows as never,
        run: async (sql, params = []) => ({
          changes: (await client.query(queryOf(sql, params))).rowCount ?? 0,
        }),
        lock: async (key) => {
          if (held.has(key)) return;
          await client.query(queryOf("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [key]));
          held.add(key);
        },
        notify: (channel, payload = "") => {
          notices.push({ channel: this.channelName(channel), payload });
        },
      };
      const context = { tx, open: true };
      let value: T;
      try {
        value = await this.ambient.run(context, () => work(tx));
      } finally {
        context.open = false;
      }
      await client.query("COMMIT");
      await this.notifyAfterCommit(client, notices);
      return value;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch {
        broken = true;
      }
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Sends a committed transaction's notifications, all in one statement of their own. Not inside the transaction:
   * a transaction that notifies holds PostgreSQL's notification queue lock through its commit, so notifying
   * commits would run one at a time (the store benchmark measured activations 1.6-3x slower). A notification
   * lost here (the connection dropped just after the commit) costs a waiter one poll interval, which the
   * waiters already allow for; the commit itself stands, so this never fails the transaction.
   */
  private async notifyAfterCommit(client: pg.PoolClient, notices: readonly Notice[]): Promise<void> {
    if (notices.length === 0) return;
    const unique = [...new Map(notices.map((n) => [`${n.channel}\n${n.payload}`, n])).values()];
    try {
      await client.query("SELECT pg_notify(c, p) FROM unnest($1::text[], $2::text[]) AS n(c, p)", [
        unique.map((n) => n.channel),
        unique.map((n) => n.payload),
      ]);
    } catch (error) {
      this.options.onNotifyError?.(error);
    }
  }

  private channelName(channel: string): string {
    const name = this.options.schema ? `${this.options.schema}.${channel}` : channel;
    // PostgreSQL channel names are identifiers of at most 63 bytes: pg_notify refuses a longer one (failing the
    // transaction) and LISTEN truncates it. A longer name is replaced by its hash, the same on every instance.
    if (Buffer.byteLength(name) <= MAX_CHANNEL_BYTES) return name;
    return `channel_${createHash("sha256").update(name).digest("hex").slice(0, 40)}`;
  }
}

/**
 * The LISTEN connection: listens on every channel someone wants, and after it drops reconnects, listens again
 * and calls every handler once with an empty payload, since notifications sent meanwhile were lost.
 */
class Listener {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  /** Each channel's LISTEN, settled once it is in place (or failed). */
  private readonly listening = new Map<string, Promise<void>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly options: PostgresStoreOptions,
  ) {}

  async add(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      const listening = this.connected().then(async (client) => {
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      });
      this.listening.set(channel, listening);
      listening.catch(() => {
        // Nobody listens: the next add on this channel tries again.
        if (this.listening.get(channel) === listening) this.listening.delete(channel);
        if (this.handlers.get(channel)?.size === 0) this.handlers.delete(channel);
      });
    }
    // Every caller, not only the first, returns once the LISTEN is in place: a waiter checks right after, and a
    // commit between that check and the LISTEN would otherwise go unheard.
    await this.listening.get(channel);
    // The channel's last listener may have left meanwhile (its set is gone, UNLISTEN sent): start over.
    if (this.handlers.get(channel) !== set) return this.add(channel, handler);
    set.add(handler);
    return async () => {
      const current = this.handlers.get(channel);
      if (!current?.delete(handler) || current.size > 0) return;
      this.handlers.delete(channel);
      this.listening.delete(channel);
      if (this.client) await this.client.query(`UNLISTEN ${quoteIdentifier(channel)}`).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    this.handlers.clear();
    this.listening.clear();
    if (client) await client.end().catch(() => {});
  }

  private connected(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client(this.config);
    client.on("notification", (message) => {
      for (const handler of this.handlers.get(message.channel) ?? []) handler(message.payload ?? "");
    });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, new Error("the LISTEN connection ended")));
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdentifier(channel)}`);
    this.client = client;
    return client;
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.options.onListenError?.(error);
    client.end().catch(() => {});
    this.reconnectSoon();
  }

  private reconnectSoon(): void {
    if (this.closed || this.handlers.size === 0) return;
    this.retryTimer = setTimeout(() => {
      this.connected().then(
        () => {
          // Whatever was sent while the connection was down is gone: wake every handler to look again.
          for (const set of this.handlers.values()) for (const handler of set) handler("");
        },
        (error) => {
          this.options.onListenError?.(error);
          this.reconnectSoon();
        },
      );
    }, this.options.reconnectDelayMs ?? 500);
    this.retryTimer.unref();
  }
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
