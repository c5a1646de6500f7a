// The engine the service suites run on: BATON_TEST_STORE=sqlite (the default) or postgres. In-process harnesses
// open their store through openTestStore, and startServe (serve.ts) starts `baton serve` on the same engine, so
// one environment variable runs the whole service suite against either engine (vitest.config.ts's projects).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { SecretBox } from "../../src/server/primitives/secret-box.js";
import { openPostgresStore } from "../../src/server/store/open-store.js";
import type { PostgresStore } from "../../src/server/store/postgres-store.js";
import type { Store } from "../../src/server/store/store.js";
import { migratedSchema } from "./migrated-schemas.js";
import { dumpSchema } from "./serve-place.js";
import { openSqliteStore } from "./sqlite-store.js";

export type TestEngine = "sqlite" | "postgres";

const EngineSchema = z.enum(["sqlite", "postgres"]);

/** The engine BATON_TEST_STORE names; a clear error for anything else than sqlite, postgres or nothing. */
export function testEngine(env: NodeJS.ProcessEnv = process.env): TestEngine {
  const value = env.BATON_TEST_STORE || "sqlite";
  const parsed = EngineSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(`BATON_TEST_STORE must be sqlite or postgres, not ${JSON.stringify(value)}`);
  return parsed.data;
}

export const TEST_ENGINE: TestEngine = testEngine();

export interface OpenTestStoreOptions {
  /** Seals the secret values a migration finds in plaintext, as serve's key would. */
  secretBox?: SecretBox;
  /** The engine; BATON_TEST_STORE's by default. */
  engine?: TestEngine;
}

/**
 * A migrated store as `baton serve` opens it: on SQLite `serve.sqlite` in `dir`; on PostgreSQL a migrated schema
 * of the test database with no rows (migrated-schemas.ts), given back when the store closes.
 */
const schemas = new WeakMap<Store, string>();

/**
 * Every stored byte of a store openTestStore opened in `dir`, as text, for "no secret at rest" checks: the SQLite
 * file after a checkpoint (so the WAL's pages are in it), or every row of the PostgreSQL schema.
 */
export async function dumpTestStore(store: Store, dir: string): Promise<string> {
  const schema = schemas.get(store);
  if (schema !== undefined) return dumpSchema(schema);
  await store.all("PRAGMA wal_checkpoint(FULL)");
  return (await readFile(join(dir, "serve.sqlite"))).toString("latin1");
}

export async function openTestStore(dir: string, options: OpenTestStoreOptions = {}): Promise<Store> {
  const engine = options.engine ?? TEST_ENGINE;
  const secretBox = options.secretBox ? { secretBox: options.secretBox } : {};
  if (engine === "sqlite") return openSqliteStore(join(dir, "serve.sqlite"), secretBox);
  const schema = await migratedSchema();
  let store: PostgresStore;
  try {
    store = await openPostgresStore(schema.url, { ...secretBox, schema: schema.schema, poolSize: 4 });
  } catch (error) {
    await schema.drop();
    throw error;
  }
  schemas.set(store, schema.schema);
  const close = store.close.bind(store);
  store.close = async () => {
    try {
      await close();
    } finally {
      await schema.drop();
    }
  };
  return store;
}
