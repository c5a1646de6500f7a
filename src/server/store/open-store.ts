// Opens (creating if needed) the SQLite file, sets durable pragmas and brings the schema up to date.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { SecretBox } from "../secrets/secret-box.js";
import { migrate } from "./migrate.js";
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
  migrate(db, undefined, new Date(), { secretBox: options.secretBox });
  return db;
}
