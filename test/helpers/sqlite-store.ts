// The store the domain speaks to, over a SQLite file opened (and migrated) as `baton serve` opens it. Closing it
// ends its queued transactions and then closes the file, as serve does; tests that check the raw file itself
// (migrations, pragmas) use openDatabase directly.
import { type OpenDatabaseOptions, openDatabase } from "../../src/server/store/open-store.js";
import { SqliteStore } from "../../src/server/store/sqlite-store.js";

class ClosingSqliteStore extends SqliteStore {
  override async close(): Promise<void> {
    await super.close();
    this.db.close();
  }
}

export async function openSqliteStore(path: string, options: OpenDatabaseOptions = {}): Promise<SqliteStore> {
  return new ClosingSqliteStore(await openDatabase(path, options));
}
