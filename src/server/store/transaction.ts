// One write transaction at a time: BEGIN IMMEDIATE takes the write lock up front so two writers never deadlock.
import type { Database } from "./sqlite.js";
import { statement } from "./statements.js";

export function inTransaction<T>(db: Database, work: () => T): T {
  statement(db, "BEGIN IMMEDIATE").run();
  try {
    const result = work();
    statement(db, "COMMIT").run();
    return result;
  } catch (error) {
    statement(db, "ROLLBACK").run();
    throw error;
  }
}
