// PostgreSQL for the store benches: the server scripts/setup-machine.sh starts on loopback, or the one
// BATON_BENCH_DATABASE_URL (else BATON_TEST_DATABASE_URL) names. Each bench row runs in a schema of its own,
// dropped at the end.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { quoteIdentifier } from "../dist/src/server/store/postgres-store.js";

export const DATABASE_URL =
  process.env.BATON_BENCH_DATABASE_URL ??
  process.env.BATON_TEST_DATABASE_URL ??
  "postgres://baton:baton@127.0.0.1:5432/baton_test";

/**
 * The URL of a bench schema as an operator would write it (`options=-c search_path=…`), with commits waiting for
 * their WAL flush: the test database turns that off for the suite (scripts/setup-machine.sh), and a benchmark
 * measures PostgreSQL's durable default.
 */
export function benchSchemaUrl(schema) {
  const options = `-c search_path=${schema} -c synchronous_commit=on`;
  return `${DATABASE_URL}?options=${encodeURIComponent(options)}`;
}

/** Runs one statement outside any store (creating and dropping a bench's schema). */
export async function admin(sql) {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${DATABASE_URL.replace(/:[^:@/]*@/, ":***@")} (${error.message}); ` +
        "start it with `bash scripts/setup-machine.sh` or set BATON_BENCH_DATABASE_URL",
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh schema: its name, and `drop()` to remove it with everything in it. */
export async function freshBenchSchema() {
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  await admin(`CREATE SCHEMA ${quoteIdentifier(schema)}`);
  return { schema, drop: () => admin(`DROP SCHEMA ${quoteIdentifier(schema)} CASCADE`) };
}
