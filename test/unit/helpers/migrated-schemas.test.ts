// The reused PostgreSQL schemas of the service suites (migrated-schemas.ts) against the test database: a schema
// a test gives back reaches the next test with no row of the last one (a canary left in a referenced and a
// referencing table) and with its identities restarted; one whose shape a test changed is dropped, not reused.
import { afterAll, describe, expect, it } from "vitest";
import { dropSpareSchemas, migratedSchema } from "../../helpers/migrated-schemas.js";
import { admin } from "../../helpers/postgres.js";

const CANARY = "canary-migrated-schema-8f2d";

async function schemaExists(name: string): Promise<boolean> {
  return (await admin("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name])).rowCount === 1;
}

async function rowCount(schema: string, table: string): Promise<number> {
  return Number((await admin(`SELECT count(*) AS n FROM "${schema}"."${table}"`)).rows[0].n);
}

describe("migrated schemas reused within a test file", () => {
  afterAll(() => dropSpareSchemas());

  it("a given-back schema comes back empty, its identities restarted, at the same migrations", async () => {
    const first = await migratedSchema();
    const migrations = await rowCount(first.schema, "schema_migrations");
    expect(migrations).toBeGreaterThan(0);
    // Rows in a referenced table and in the table referencing it: the cleaning must delete in that order.
    await admin(
      `INSERT INTO "${first.schema}".workspaces (id, name, created_at) VALUES ('ws_1', '${CANARY}', 'now')`,
    );
    await admin(
      `INSERT INTO "${first.schema}".repositories (id, workspace_id, slug) VALUES ('r_1', 'ws_1', 'a/b')`,
    );
    const seqs = async (schema: string) =>
      (
        await admin(
          `INSERT INTO "${schema}".webhook_deliveries (source, delivery_id, event, payload, received_at_ms)
           VALUES ('codehost', $1, 'push', '{}', 0) RETURNING seq`,
          [`d_${Math.random()}`],
        )
      ).rows[0].seq;
    expect(Number(await seqs(first.schema))).toBe(1);
    expect(Number(await seqs(first.schema))).toBe(2);
    await first.drop();

    const second = await migratedSchema();
    expect(second.schema).toBe(first.schema);
    for (const table of ["workspaces", "repositories", "webhook_deliveries"]) {
      expect(await rowCount(second.schema, table)).toBe(0);
    }
    expect(await rowCount(second.schema, "schema_migrations")).toBe(migrations);
    expect(Number(await seqs(second.schema))).toBe(1);
    await second.drop();
  });

  it("a schema a test changed (a table of its own) is dropped, and the next test gets another", async () => {
    const changed = await migratedSchema();
    await admin(`CREATE TABLE "${changed.schema}".extra (id TEXT)`);
    await changed.drop();
    const next = await migratedSchema();
    expect(next.schema).not.toBe(changed.schema);
    expect(await schemaExists(changed.schema)).toBe(false);
    await next.drop();
  });

  it("the spares are dropped when the file ends", async () => {
    const kept = await migratedSchema();
    await kept.drop();
    expect(await schemaExists(kept.schema)).toBe(true);
    await dropSpareSchemas();
    expect(await schemaExists(kept.schema)).toBe(false);
  });
});
