// Applies the migrations a database has not seen yet, each in its own transaction, in version order.

import { MIGRATIONS, type Migration, type MigrationContext } from "./migrations/index.js";
import type { Database } from "./sqlite.js";
import { inTransaction } from "./transaction.js";

export function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now = new Date(),
  context: MigrationContext = {},
): number[] {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const applied = new Set(
    (db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map(
      (r) => r.version,
    ),
  );
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  const ran: number[] = [];
  for (const migration of ordered) {
    if (applied.has(migration.version)) continue;
    inTransaction(db, () => {
      migration.up(db, context);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
        migration.version,
        migration.name,
        now.toISOString(),
      );
    });
    ran.push(migration.version);
  }
  return ran;
}
