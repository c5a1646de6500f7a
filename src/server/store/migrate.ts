// Applies the migrations a store has not seen yet, each in its own transaction, in version order, on either
// engine. On PostgreSQL several instances may start at once: every migration transaction first takes the
// advisory lock MIGRATE_LOCK and looks again whether its version is recorded, so each migration runs once and
// an instance that waited sees the other's work done (on SQLite the lock is a no-op: writers already queue).

import { splitStatements, translateForPostgres } from "./migrations/ddl.js";
import { MIGRATIONS, type Migration, type MigrationContext, type MigrationRun } from "./migrations/index.js";
import type { Database } from "./sqlite.js";
import { SqliteStore } from "./sqlite-store.js";
import type { Engine, SqlValue, Store, Transaction } from "./store.js";

export const MIGRATE_LOCK = "baton:migrate";

const SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** Brings `store` up to date; resolves to the versions this call applied (none when another did the work). */
export async function migrateStore(
  store: Store,
  migrations: readonly Migration[] = MIGRATIONS,
  now = new Date(),
  context: MigrationContext = {},
): Promise<number[]> {
  const ordered = inVersionOrder(migrations);
  await store.transaction(async (tx) => {
    await tx.lock(MIGRATE_LOCK);
    await runFor(tx, store.engine).exec(SCHEMA_MIGRATIONS);
  });
  const applied = new Set(
    (await store.all<{ version: number }>("SELECT version FROM schema_migrations")).map((r) =>
      Number(r.version),
    ),
  );
  const ran: number[] = [];
  for (const migration of ordered) {
    if (applied.has(migration.version)) continue;
    const didRun = await store.transaction(async (tx) => {
      await tx.lock(MIGRATE_LOCK);
      // Another instance may have applied it while this one waited for the lock.
      if (await tx.get("SELECT 1 AS done FROM schema_migrations WHERE version = ?", [migration.version])) {
        return false;
      }
      await migration.up(runFor(tx, store.engine), context);
      await tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)", [
        migration.version,
        migration.name,
        now.toISOString(),
      ]);
      return true;
    });
    if (didRun) ran.push(migration.version);
  }
  return ran;
}

/** Migrates the synchronous SQLite connection the domain uses, through a store on that same connection. */
export async function migrateDatabase(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now = new Date(),
  context: MigrationContext = {},
): Promise<number[]> {
  const store = new SqliteStore(db);
  try {
    return await migrateStore(store, migrations, now, context);
  } finally {
    // Closes the store's queue only: the connection stays open for its caller.
    await store.close();
  }
}

function inVersionOrder(migrations: readonly Migration[]): Migration[] {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  ordered.forEach((migration, i) => {
    if (!Number.isSafeInteger(migration.version) || migration.version < 1) {
      throw new Error(
        `migration "${migration.name}" has version ${migration.version}; use a positive integer`,
      );
    }
    if (i > 0 && ordered[i - 1]!.version === migration.version) {
      throw new Error(
        `migrations "${ordered[i - 1]!.name}" and "${migration.name}" share version ${migration.version}`,
      );
    }
  });
  return ordered;
}

function runFor(tx: Transaction, engine: Engine): MigrationRun {
  return {
    engine,
    get: <Row>(sql: string, params?: readonly SqlValue[]) => tx.get<Row>(sql, params),
    all: <Row>(sql: string, params?: readonly SqlValue[]) => tx.all<Row>(sql, params),
    run: (sql, params) => tx.run(sql, params),
    lock: (key) => tx.lock(key),
    notify: (channel, payload) => tx.notify(channel, payload),
    exec: async (script) => {
      const sql = engine === "postgres" ? translateForPostgres(script) : script;
      for (const statement of splitStatements(sql)) await tx.run(statement);
    },
  };
}
