// openPostgresStore: a reachable database comes back migrated; an unreachable one fails at once with the URL
// shown without its password.
import { createServer, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { isBatonError } from "../../../../src/errors.js";
import { MIGRATIONS } from "../../../../src/server/store/migrations/index.js";
import { openPostgresStore } from "../../../../src/server/store/open-store.js";
import { freshSchema, TEST_DATABASE_URL } from "../../../helpers/postgres.js";

const PASSWORD_CANARY = "pw-canary-51d0e2b7";

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("openPostgresStore", () => {
  it("migrates a reachable database and returns the store on it", async () => {
    const schema = await freshSchema();
    const store = await openPostgresStore(TEST_DATABASE_URL, { schema: schema.schema, poolSize: 2 });
    try {
      const rows = await store.all<{ version: number }>(
        "SELECT version FROM schema_migrations ORDER BY version",
      );
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it("fails fast against a closed port: 'cannot reach PostgreSQL at <url without password>: <reason>'", async () => {
    const port = await closedPort();
    const url = `postgres://baton:${PASSWORD_CANARY}@127.0.0.1:${port}/baton_test`;
    const started = Date.now();
    const error = await openPostgresStore(url).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(isBatonError(error)).toBe(true);
    expect((error as { code: string }).code).toBe("network");
    const message = (error as Error).message;
    expect(message).toBe(
      `cannot reach PostgreSQL at postgres://baton:***@127.0.0.1:${port}/baton_test: connect ECONNREFUSED 127.0.0.1:${port}; check --database-url`,
    );
    // Nothing the error carries, printed in any form, holds the password.
    expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).not.toContain(PASSWORD_CANARY);
    expect(String((error as Error).stack)).not.toContain(PASSWORD_CANARY);
  });

  it("gives up on a server that never answers after connectTimeoutMs, without the password", async () => {
    // A listener that accepts and stays silent stands in for a host that drops packets (nothing to fake there).
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const url = `postgres://baton:${PASSWORD_CANARY}@127.0.0.1:${port}/baton_test`;
      const started = Date.now();
      const error = await openPostgresStore(url, { connectTimeoutMs: 300 }).then(
        () => undefined,
        (thrown: unknown) => thrown as Error,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(error?.message).toMatch(
        new RegExp(
          `^cannot reach PostgreSQL at postgres://baton:\\*\\*\\*@127\\.0\\.0\\.1:${port}/baton_test: .+; check --database-url$`,
        ),
      );
      expect(error?.message).not.toContain(PASSWORD_CANARY);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
