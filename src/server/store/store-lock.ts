// One `baton serve` per SQLite store: two would run two task engines and two sweeps over the same rows. The
// lock is SQLite's own (an fcntl lock the kernel drops when its holder dies, so a `kill -9`'d service leaves
// nothing stale) on a small database beside the store, kept by EXCLUSIVE locking mode for the process's life;
// a pid file beside it only names the holder in the refusal.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { BatonError } from "../../errors.js";
import { loadSqlite } from "./sqlite.js";

export class StoreInUseError extends BatonError {
  override readonly name = "StoreInUseError";
  constructor(dbPath: string, holder: string | undefined) {
    super(
      "conflict",
      `the store ${dbPath} is in use by another baton serve${holder ? ` (pid ${holder})` : ""}; stop that one first, or give this one its own --db`,
      { details: holder ? { pid: holder } : {} },
    );
  }
}

export interface StoreLock {
  release(): void;
}

export const lockFileOf = (dbPath: string) => `${dbPath}.lock`;
export const pidFileOf = (dbPath: string) => `${dbPath}.lock.pid`;

/** Takes the store's lock or throws StoreInUseError naming the holder's pid. `:memory:` has nothing to share. */
export async function lockStore(dbPath: string): Promise<StoreLock> {
  if (dbPath === ":memory:") return { release() {} };
  const { DatabaseSync } = await loadSqlite();
  const lock = new DatabaseSync(lockFileOf(dbPath), { timeout: 0 });
  try {
    lock.exec("PRAGMA locking_mode = EXCLUSIVE");
    // The first write takes SQLite's EXCLUSIVE lock; EXCLUSIVE locking mode keeps it until the connection closes.
    lock.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder; COMMIT");
  } catch (error) {
    lock.close();
    if (!/locked|busy/i.test((error as Error).message)) throw error;
    throw new StoreInUseError(dbPath, readHolder(dbPath));
  }
  writeFileSync(pidFileOf(dbPath), `${process.pid}\n`, { mode: 0o600 });
  return {
    release() {
      rmSync(pidFileOf(dbPath), { force: true });
      lock.close();
    },
  };
}

function readHolder(dbPath: string): string | undefined {
  try {
    const pid = readFileSync(pidFileOf(dbPath), "utf8").trim();
    return /^\d+$/.test(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}
