// Prepared statements cached per database and SQL text. Preparing costs about three times running a small
// statement, and an activation runs dozens of them, so the hot paths (operations, activation, authentication)
// prepare each SQL text once per database. Safe because node:sqlite is synchronous and every caller here
// finishes with a statement (`get`, `all`, `run`) before anything else can use it; never hold one across an
// `await` or use `iterate()` on a cached statement.
import type { StatementSync } from "node:sqlite";
import type { Database } from "./sqlite.js";

const caches = new WeakMap<Database, Map<string, StatementSync>>();

export function statement(db: Database, sql: string): StatementSync {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    cache.set(sql, prepared);
  }
  return prepared;
}
