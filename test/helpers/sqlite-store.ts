// The store the domain speaks to, over a SQLite file opened (and migrated) as `baton serve` opens it. Closing it
// ends its queued transactions and then closes the file, as serve does; tests that check the raw file itself
// (migrations, pragmas) use openDatabase directly.
import { type OpenDatabaseOptions, openDatabase } from "../../src/server/store/open-store.js";
import type { Database } from "../../src/server/store/sqlite.js";
import { SqliteStore } from "../../src/server/store/sqlite-store.js";

class ClosingSqliteStore extends SqliteStore {
  override async close(): Promise<void> {
    await super.close();
    this.db.close();
  }
}

export async function openSqliteStore(path: string, options: OpenDatabaseOptions = {}): Promise<SqliteStore> {
  return storeOver(await openDatabase(path, options));
}

/** The store over a database the test opened (and migrated) itself; closing the store closes the database. */
export function storeOver(db: Database): SqliteStore {
  return new ClosingSqliteStore(db);
}
