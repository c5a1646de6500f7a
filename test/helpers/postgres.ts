// PostgreSQL for the tests of the second store engine: the server scripts/setup-machine.sh starts on loopback
// (or the one BATON_TEST_DATABASE_URL names). Each suite gets a schema of its own, dropped at the end, so suites
// run side by side in one database without seeing each other's rows or notifications.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach } from "vitest";
import {
  PostgresStore,
  type PostgresStoreOptions,
  quoteIdentifier,
} from "../../src/server/store/postgres-store.js";
import { loadSqlite } from "../../src/server/store/sqlite.js";
import { SqliteStore } from "../../src/server/store/sqlite-store.js";
import type { Store } from "../../src/server/store/store.js";

export const TEST_DATABASE_URL =
  process.env.BATON_TEST_DATABASE_URL ?? "postgres://baton:baton@127.0.0.1:5432/baton_test";

export interface TestSchema {
  url: string;
  schema: string;
  /** A store on this schema; each call opens another (another "instance"). */
  open(options?: PostgresStoreOptions): PostgresStore;
  /** Closes the stores `open` made and drops the schema. */
  drop(): Promise<void>;
}

export async function freshSchema(): Promise<TestSchema> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
  return schemaHandle(schema, dropSchema);
}

/** The handle on an existing schema: `drop()` closes the stores `open` made, then calls `release`. */
export function schemaHandle(schema: string, release: (schema: string) => Promise<void>): TestSchema {
  const opened: PostgresStore[] = [];
  return {
    url: TEST_DATABASE_URL,
    schema,
    open(options = {}) {
      const store = new PostgresStore(TEST_DATABASE_URL, { poolSize: 4, ...options, schema });
      opened.push(store);
      return store;
    },
    async drop() {
      await Promise.all(opened.map((store) => store.close().catch(() => {})));
      await release(schema);
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  await admin(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
}

/** Runs one statement as the test role outside any store (schema set-up, killing a backend). */
export async function admin(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${TEST_DATABASE_URL.replace(/:[^:@/]*@/, ":***@")} (${(error as Error).message}); ` +
        "start it with `bash scripts/setup-machine.sh` or set BATON_TEST_DATABASE_URL",
    );
  }
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** Both engines, for suites that hold them to the same behaviour (`describe.each(ENGINES)`). */
export interface EngineUnderTest {
  name: "sqlite" | "postgres";
  /** A store with nothing in it, and the way to open a second one on the same data (another instance). */
  setUp(): Promise<{ store: Store; another(): Store; tearDown(): Promise<void> }>;
}

export const ENGINES: EngineUnderTest[] = [
  {
    name: "sqlite",
    async setUp() {
      const { DatabaseSync } = await loadSqlite();
      const store = new SqliteStore(new DatabaseSync(":memory:"));
      return {
        store,
        another: () => store,
        tearDown: async () => {
          await store.close();
          store.db.close();
        },
      };
    },
  },
  {
    name: "postgres",
    async setUp() {
      const schema = await freshSchema();
      return { store: schema.open(), another: () => schema.open(), tearDown: () => schema.drop() };
    },
  },
];

/** A suite's engine, set up before each test: read `store` and `another()` inside the tests. */
export interface EngineInUse {
  store: Store;
  /** A second store on the same data (another instance); SQLite has one. */
  another(): Store;
}

/** Sets `engine` up before each test (running `ddl` on it) and tears it down after. */
export function useEngine(engine: EngineUnderTest, ...ddl: string[]): EngineInUse {
  const inUse = {} as EngineInUse;
  let tearDown: () => Promise<void> = async () => {};
  beforeEach(async () => {
    const set = await engine.setUp();
    inUse.store = set.store;
    inUse.another = set.another;
    tearDown = set.tearDown;
    for (const sql of ddl) await set.store.run(sql);
  });
  afterEach(() => tearDown());
  return inUse;
}

/** A PostgreSQL schema of its own for each test of a suite, dropped after it. */
export function useSchema(): { readonly current: TestSchema } {
  const holder = {} as { current: TestSchema };
  beforeEach(async () => {
    holder.current = await freshSchema();
  });
  afterEach(() => holder.current.drop());
  return holder;
}
