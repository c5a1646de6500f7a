// Opens a store and brings its schema up to date: the SQLite file (created if needed, with durable pragmas), or
// a PostgreSQL database (`--database-url`), checked reachable first so a wrong URL fails at start, clearly.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import pg from "pg";
import { BatonError } from "../../errors.js";
import type { SecretBox } from "../primitives/secret-box.js";
import { redactDatabaseUrl, withoutUrlSecrets } from "./database-url.js";
import { migrateDatabase, migrateStore } from "./migrate.js";
import { explainPostgresError, SIGN_IN_REFUSED } from "./postgres-errors.js";
import { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
import { type Database, loadSqlite } from "./sqlite.js";

/**
 * Creates the missing folders of `dir` one level at a time. (Node's recursive mkdir spins forever on a path
 * under /proc, where mkdir fails with ENOENT; one level at a time fails at once with that error.)
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let folder = dir; !existsSync(folder) && dirname(folder) !== folder; folder = dirname(folder)) {
    missing.push(folder);
  }
  for (const folder of missing.reverse()) mkdirSync(folder, { mode: 0o700 });
}

export interface OpenDatabaseOptions {
  /** Seals secret values a migration finds in plaintext (an older store); required only when there are any. */
  secretBox?: SecretBox | undefined;
}

export async function openDatabase(path: string, options: OpenDatabaseOptions = {}): Promise<Database> {
  if (path !== ":memory:") {
    makeFolders(dirname(path));
    // The store holds sealed secret values and credential hashes: owner-only, and SQLite gives its -wal and
    // -shm files the main file's mode.
    closeSync(openSync(path, "a", 0o600));
    chmodSync(path, 0o600);
  }
  const { DatabaseSync } = await loadSqlite();
  const db = new DatabaseSync(path);
  // WAL lets long-poll reads run beside the worker's writes; synchronous=FULL makes each commit survive power
  // loss, not just a killed process; busy_timeout covers a second process (an admin tool) holding the lock.
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = FULL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  // Savepoint journals in memory: each item of a group commit has its own savepoint, and past 64 KiB SQLite
  // spilled its journal to a temporary file, a write system call per page. Only a transaction in progress
  // needs them (the WAL alone recovers from a crash), so durability is unchanged.
  db.exec("PRAGMA temp_store = MEMORY");
  try {
    await migrateDatabase(db, undefined, new Date(), { secretBox: options.secretBox });
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

export interface OpenPostgresStoreOptions extends PostgresStoreOptions, OpenDatabaseOptions {
  /** How long the first connection may take before the server counts as unreachable (default 10 s). */
  connectTimeoutMs?: number;
}

/** Connects to PostgreSQL at `url`, migrates its schema (once across instances starting together), returns it. */
export async function openPostgresStore(
  url: string,
  options: OpenPostgresStoreOptions = {},
): Promise<PostgresStore> {
  await checkReachable(url, options.connectTimeoutMs ?? 10_000);
  const { secretBox, connectTimeoutMs: _, ...storeOptions } = options;
  const store = new PostgresStore(url, storeOptions);
  try {
    await store.ping();
    await migrateStore(store, undefined, new Date(), { secretBox });
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}

/**
 * One connection of its own with a deadline (the store's pool has none, as its requests may wait for a busy
 * pool): a host that drops packets fails here after `timeoutMs` instead of hanging the start.
 */
async function checkReachable(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    // A refused sign-in is not a reachability problem: say where the password comes from.
    const { code } = error as { code?: string };
    if (code && SIGN_IN_REFUSED.has(code)) throw explainPostgresError(error, url) ?? error;
    const reason = withoutUrlSecrets(reasonOf(error), url);
    throw new BatonError(
      "network",
      `cannot reach PostgreSQL at ${redactDatabaseUrl(url)}: ${reason}; check --database-url`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** A driver error in words; Node reports a refused dual-stack connection as an AggregateError with no message. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return [...new Set(error.errors.map(reasonOf))].join("; ");
  }
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}
