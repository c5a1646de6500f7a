// Opens (creating if needed) the SQLite file, sets durable pragmas and brings the schema up to date.
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { migrate } from "./migrate.js";
import { type Database, loadSqlite } from "./sqlite.js";

export async function openDatabase(path: string): Promise<Database> {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // The store holds secret values (the proxy needs them): owner-only, and SQLite gives its -wal and -shm
    // files the main file's mode.
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
  migrate(db);
  return db;
}
