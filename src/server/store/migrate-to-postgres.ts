// `baton admin migrate-store`: moves a stopped service's SQLite store into an empty PostgreSQL database. The file
// is opened read-only and must be at this build's schema version; the database is migrated to the same version,
// then copyStore copies and checks everything in one transaction.
import { existsSync } from "node:fs";
import { BatonError, isBatonError, RefusedError } from "../../errors.js";
import { type CopyProgress, type CopyResult, copyStore } from "./copy-store.js";
import { withoutUrlSecrets } from "./database-url.js";
import { MIGRATIONS } from "./migrations/index.js";
import { openPostgresStore } from "./open-store.js";
import { explainPostgresError, parseDatabaseUrl } from "./postgres-errors.js";
import type { PostgresStore } from "./postgres-store.js";
import { type Database, loadSqlite } from "./sqlite.js";
import { lockStore } from "./store-lock.js";

export interface MigrateToPostgresOptions {
  dbPath: string;
  databaseUrl: string;
  onProgress?: (progress: CopyProgress) => void;
  /** How long connecting to PostgreSQL may take (default 10 s). */
  connectTimeoutMs?: number;
}

export interface MigrateToPostgresResult extends CopyResult {
  /** The schema version both stores are at. */
  version: number;
}

export const SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

export async function migrateSqliteToPostgres(
  options: MigrateToPostgresOptions,
): Promise<MigrateToPostgresResult> {
  parseDatabaseUrl(options.databaseUrl);
  if (!existsSync(options.dbPath)) {
    throw new RefusedError(
      `there is no SQLite store at ${options.dbPath}: give --db the file baton serve --db used`,
    );
  }
  // The service's own lock: a running baton serve would keep writing rows the copy never sees.
  const lock = await lockStore(options.dbPath);
  try {
    const source = await openReadOnly(options.dbPath);
    try {
      checkSourceVersion(source, options.dbPath);
      return await copyInto(source, options);
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
}

async function openReadOnly(path: string): Promise<Database> {
  const { DatabaseSync } = await loadSqlite();
  try {
    return new DatabaseSync(path, { readOnly: true });
  } catch (error) {
    throw new RefusedError(`cannot open ${path} as a SQLite store: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Refuses a file behind this build (baton serve of this version migrates it first) or ahead of it. */
function checkSourceVersion(db: Database, path: string): void {
  let applied: Set<number>;
  try {
    const rows = db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[];
    applied = new Set(rows.map((row) => Number(row.version)));
  } catch (error) {
    throw new RefusedError(`${path} is not a Baton store (${(error as Error).message})`, { cause: error });
  }
  const missing = MIGRATIONS.filter((migration) => !applied.has(migration.version));
  const known = new Set(MIGRATIONS.map((migration) => migration.version));
  const newer = [...applied].filter((version) => !known.has(version));
  if (newer.length > 0) {
    throw new RefusedError(
      `${path} was written by a newer baton (schema version ${Math.max(...newer)}; this build knows up to ${SCHEMA_VERSION}): run that version's migrate-store`,
    );
  }
  if (missing.length > 0) {
    throw new RefusedError(
      `${path} is at an older schema than this build's (it lacks version ${missing.map((m) => m.version).join(", ")}): start this version's baton serve --db ${path} once so it migrates the file, stop it, then run migrate-store again`,
    );
  }
}

async function copyInto(
  source: Database,
  options: MigrateToPostgresOptions,
): Promise<MigrateToPostgresResult> {
  let target: PostgresStore | undefined;
  try {
    // Connects (failing after the timeout, not the system's TCP one) and migrates to this build's schema.
    target = await openPostgresStore(options.databaseUrl, {
      poolSize: 2,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    });
    const copied = await copyStore(source, target, { onProgress: options.onProgress });
    return { ...copied, version: SCHEMA_VERSION };
  } catch (error) {
    if (isBatonError(error)) throw error;
    throw (
      explainPostgresError(error, options.databaseUrl) ??
      new BatonError(
        "service_error",
        `PostgreSQL failed: ${withoutUrlSecrets((error as Error).message, options.databaseUrl)}`,
        {
          cause: error,
        },
      )
    );
  } finally {
    await target?.close().catch(() => {});
  }
}
