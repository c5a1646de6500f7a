// One write transaction at a time: BEGIN IMMEDIATE takes the write lock up front so two writers never deadlock.
import type { Database } from "./sqlite.js";

export function inTransaction<T>(db: Database, work: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = work();
    db.exec("COMMIT");
    return result;
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
