// The store `baton serve` runs on, opened with what belongs to it: the SQLite file (`--db`) with its lock file and
// its default key beside it, or PostgreSQL (`--database-url`), shared by several instances, so no lock file and
// no default key: every instance must seal secrets with the same `--secret-key-file`.
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { BatonError, InputError, isBatonError, UsageError } from "../errors.js";
import { checkCheckoutRoot } from "./adapters/sandboxes/checkout-root.js";
import { ephemeralSecretBox, loadOrCreateSecretKey, type SecretBox } from "./domain/secrets/index.js";
import { redactDatabaseUrl, withoutUrlSecrets } from "./store/database-url.js";
import { makeFolders, openDatabase, openPostgresStore } from "./store/open-store.js";
import { explainPostgresError, parseDatabaseUrl } from "./store/postgres-errors.js";
import { SqliteStore } from "./store/sqlite-store.js";
import type { Store } from "./store/store.js";
import { lockStore, StoreInUseError } from "./store/store-lock.js";

export interface ServiceStoreFlags {
  db?: string | undefined;
  databaseUrl?: string | undefined;
  secretKeyFile?: string | undefined;
  workDir?: string | undefined;
  checkoutRoot?: string | undefined;
}

export interface ServiceStore {
  db: Store;
  secretBox: SecretBox;
  /** Task folders and the local code host's repositories (`--work-dir`). */
  workRoot: string;
  /** `--checkout-root`, checked to hold none of the store, its key or the work folder. */
  checkoutRoot: string | undefined;
  /** Closes the store and gives up the SQLite lock file. */
  close(): Promise<void>;
}

export function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "baton", "serve.sqlite");
}

/** What PostgreSQL's wake-ups report while the service runs (messages carry no password of the URL). */
export interface StoreWakeEvents {
  /** The LISTEN connection dropped or could not come back; long-polls poll meanwhile (BATON_WAKE_POLL_MS). */
  onListenError?: (message: string) => void;
  /** A committed transaction's notifications could not be sent; their waiters find the change by polling. */
  onNotifyError?: (message: string) => void;
}

/** Opens the service's store and its key; every failure is a BatonError naming the flag to fix. */
export async function openServiceStore(
  flags: ServiceStoreFlags,
  env: NodeJS.ProcessEnv,
  events: StoreWakeEvents = {},
): Promise<ServiceStore> {
  return flags.databaseUrl === undefined
    ? openSqliteServiceStore(flags, env)
    : openPostgresServiceStore(flags.databaseUrl, flags, env, events);
}

async function openPostgresServiceStore(
  url: string,
  flags: ServiceStoreFlags,
  env: NodeJS.ProcessEnv,
  events: StoreWakeEvents,
): Promise<ServiceStore> {
  parseDatabaseUrl(url);
  if (flags.secretKeyFile === undefined)
    throw new UsageError(
      "--database-url needs --secret-key-file: the key that seals secret values, the same file on every instance (the SQLite service's <db>.key when you moved its store with migrate-store)",
      { path: "--secret-key-file" },
    );
  // No file of the store on this machine: the work folder defaults to the one the SQLite default would use.
  const workRoot = resolve(flags.workDir ?? join(dirname(defaultDatabasePath(env)), "work"));
  const checkoutRoot = checkedCheckoutRoot(flags, [flags.secretKeyFile, workRoot]);
  const secretBox = (await loadOrCreateSecretKey(flags.secretKeyFile)).box;
  const told = (tell: ((message: string) => void) | undefined) => (error: unknown) =>
    tell?.(withoutUrlSecrets(describe(error), url));
  const db = await openPostgresStore(url, {
    secretBox,
    onListenError: told(events.onListenError),
    onNotifyError: told(events.onNotifyError),
  }).catch((error: unknown) => {
    if (isBatonError(error)) throw error;
    throw (
      explainPostgresError(error, url) ??
      new BatonError(
        "service_error",
        `cannot open the store at ${redactDatabaseUrl(url)}: ${withoutUrlSecrets(describe(error), url)}`,
        { cause: error },
      )
    );
  });
  return { db, secretBox, workRoot, checkoutRoot, close: () => db.close() };
}

async function openSqliteServiceStore(
  flags: ServiceStoreFlags,
  env: NodeJS.ProcessEnv,
): Promise<ServiceStore> {
  const dbPath = flags.db ?? defaultDatabasePath(env);
  const cannotOpen = (error: unknown) =>
    new InputError(`cannot open the SQLite store ${dbPath}: ${describe(error)}; check --db`, {
      cause: error,
    });
  const inMemory = dbPath === ":memory:";
  // The key sits beside the store unless the operator keeps it elsewhere; its folder is the store's.
  const secretKeyFile = flags.secretKeyFile ?? (inMemory ? undefined : `${dbPath}.key`);
  // The service's state folder: task folders, and the name of the sandbox network or box folders the next start
  // on it adopts.
  const workRoot = resolve(flags.workDir ?? join(dirname(dbPath), "work"));
  const checkoutRoot = checkedCheckoutRoot(flags, [
    ...(inMemory ? [] : [dirname(dbPath), dbPath]),
    ...(secretKeyFile ? [secretKeyFile] : []),
    workRoot,
  ]);
  if (!inMemory)
    try {
      makeFolders(dirname(dbPath));
    } catch (error) {
      throw cannotOpen(error);
    }
  // Before anything reads or writes the store: a second service on it exits here, naming the first.
  const lock = await lockStore(dbPath).catch((error: unknown) => {
    throw error instanceof StoreInUseError ? error : cannotOpen(error);
  });
  try {
    const secretBox = secretKeyFile ? (await loadOrCreateSecretKey(secretKeyFile)).box : ephemeralSecretBox();
    const database = await openDatabase(dbPath, { secretBox }).catch((error: unknown) => {
      throw cannotOpen(error);
    });
    const db = new SqliteStore(database);
    const close = async () => {
      try {
        await db.close();
        database.close();
      } finally {
        lock.release();
      }
    };
    return { db, secretBox, workRoot, checkoutRoot, close };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Checked before anything is made: a root holding the store, its key or the work folder would copy them. */
function checkedCheckoutRoot(flags: ServiceStoreFlags, guarded: string[]): string | undefined {
  return flags.checkoutRoot === undefined ? undefined : checkCheckoutRoot(flags.checkoutRoot, guarded);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
