// Both store engines behind the one interface: the same calls give the same rows, transactions commit or roll
// back whole, notifications arrive only after a commit, and (PostgreSQL) across instances.
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { pollUntil } from "../../../helpers/poll.js";
import { admin, ENGINES, freshSchema, useEngine, useSchema } from "../../../helpers/postgres.js";

/** Waits until `check()` holds, failing with `what` at the deadline. */
async function until(check: () => boolean, what: string): Promise<void> {
  if (!(await pollUntil(check, Boolean, { timeoutMs: 10_000, intervalMs: 10 }))) {
    throw new Error(`timed out waiting for ${what}`);
  }
}

describe.each(ENGINES)("the $name engine", (engine) => {
  const db = useEngine(
    engine,
    "CREATE TABLE items (seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, size BIGINT, body BYTEA, note TEXT)",
  );

  it("runs statements with ? placeholders and returns plain rows", async () => {
    expect(
      await db.store.run("INSERT INTO items (seq, name, size, note) VALUES (?, ?, ?, ?)", [
        1,
        "a",
        2 ** 40,
        "what?",
      ]),
    ).toEqual({
      changes: 1,
    });
    await db.store.run("INSERT INTO items (seq, name, size) VALUES (?, ?, ?)", [2, "b", 3]);
    expect(await db.store.get("SELECT name, size, note FROM items WHERE seq = ?", [1])).toEqual({
      name: "a",
      size: 2 ** 40,
      note: "what?",
    });
    expect(await db.store.get("SELECT name FROM items WHERE name = '?' OR seq = ?", [2])).toEqual({
      name: "b",
    });
    expect(
      (await db.store.all<{ name: string }>("SELECT name FROM items ORDER BY seq")).map((r) => r.name),
    ).toEqual(["a", "b"]);
    expect(await db.store.get("SELECT name FROM items WHERE seq = ?", [9])).toBeUndefined();
    expect(await db.store.run("UPDATE items SET size = size + 1")).toEqual({ changes: 2 });
  });

  it("keeps bytes as bytes", async () => {
    const body = new Uint8Array([0, 1, 254, 255]);
    await db.store.run("INSERT INTO items (seq, name, body) VALUES (?, ?, ?)", [1, "a", body]);
    const row = await db.store.get<{ body: Uint8Array }>("SELECT body FROM items");
    expect([...row!.body]).toEqual([0, 1, 254, 255]);
  });

  it("speaks ON CONFLICT and RETURNING on both engines", async () => {
    await db.store.run("INSERT INTO items (seq, name) VALUES (1, 'a')");
    const again = await db.store.run(
      "INSERT INTO items (seq, name) VALUES (2, 'a') ON CONFLICT (name) DO NOTHING",
    );
    expect(again.changes).toBe(0);
    const returned = await db.store.get("UPDATE items SET note = ? WHERE name = ? RETURNING seq, note", [
      "x",
      "a",
    ]);
    expect(returned).toEqual({ seq: 1, note: "x" });
  });

  it("commits a transaction whole, and rolls one back whole when its work throws", async () => {
    await db.store.transaction(async (tx) => {
      await tx.run("INSERT INTO items (seq, name) VALUES (1, 'a')");
      await tx.run("INSERT INTO items (seq, name) VALUES (2, 'b')");
    });
    await expect(
      db.store.transaction(async (tx) => {
        await tx.run("INSERT INTO items (seq, name) VALUES (3, 'c')");
        await tx.run("INSERT INTO items (seq, name) VALUES (4, 'a')"); // duplicate name
      }),
    ).rejects.toThrow();
    expect(
      (await db.store.all<{ seq: number }>("SELECT seq FROM items ORDER BY seq")).map((r) => r.seq),
    ).toEqual([1, 2]);
  });

  it("rolls back only the transaction that failed when several commit together", async () => {
    const outcomes = await Promise.allSettled(
      [1, 2, 3].map((seq) =>
        db.store.transaction(async (tx) => {
          await tx.run("INSERT INTO items (seq, name) VALUES (?, ?)", [seq, `n${seq}`]);
          if (seq === 2) throw new Error("second fails");
          return seq;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(
      (await db.store.all<{ seq: number }>("SELECT seq FROM items ORDER BY seq")).map((r) => r.seq),
    ).toEqual([1, 3]);
  });

  it("never shows a statement outside a transaction what the transaction has not committed", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted = false;
    const writing = db.store.transaction(async (tx) => {
      await tx.run("INSERT INTO items (seq, name) VALUES (1, 'a')");
      inserted = true;
      await held;
    });
    await until(() => inserted, "the transaction's insert");
    const reading = db.store.all("SELECT seq FROM items");
    const first = await Promise.race([
      reading,
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 50)),
    ]);
    if (first !== "waiting") expect(first).toEqual([]); // PostgreSQL answers at once, from before the insert
    release();
    await writing;
    expect(await db.store.all("SELECT seq FROM items")).toEqual([{ seq: 1 }]);
  });

  it("runs the db.store's own calls made within a transaction inside it, and joins a nested transaction", async () => {
    // Domain code reaches the db.store through its dependencies, not through `tx`: those calls must join.
    const insert = (seq: number) =>
      db.store.run("INSERT INTO items (seq, name) VALUES (?, ?)", [seq, `n${seq}`]);
    await expect(
      db.store.transaction(async () => {
        await insert(1);
        await db.store.transaction(async () => insert(2));
        expect(db.store.current()).toBeDefined();
        expect(await db.store.all("SELECT seq FROM items ORDER BY seq")).toEqual([{ seq: 1 }, { seq: 2 }]);
        throw new Error("undo both");
      }),
    ).rejects.toThrow("undo both");
    expect(await db.store.all("SELECT seq FROM items")).toEqual([]);
    expect(db.store.current()).toBeUndefined();
  });

  it("leaves work a transaction started in the background outside it once it has ended", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let background!: Promise<unknown>;
    await db.store.transaction(async () => {
      // Started inside, so it inherits the transaction's context; it runs only after the commit.
      background = gate.then(() => db.store.run("INSERT INTO items (seq, name) VALUES (7, 'late')"));
    });
    const failing = db.store.transaction(async (tx) => {
      await tx.run("INSERT INTO items (seq, name) VALUES (8, 'in')");
      release();
      // Let the background insert run if it could (it must not join this transaction).
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error("roll back");
    });
    await expect(failing).rejects.toThrow("roll back");
    await background;
    expect(await db.store.all("SELECT seq FROM items ORDER BY seq")).toEqual([{ seq: 7 }]);
  });

  it("notifies listeners after the commit and never after a rollback", async () => {
    const heard: string[] = [];
    const stop = await db.store.listen("items", (payload) => heard.push(payload));
    await expect(
      db.store.transaction(async (tx) => {
        tx.notify("items", "rolled back");
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    await db.store.transaction(async (tx) => {
      tx.notify("items", "committed");
      await tx.run("INSERT INTO items (seq, name) VALUES (1, 'a')");
    });
    await until(() => heard.length > 0, "the notification");
    expect(heard).toEqual(["committed"]);
    await stop();
    await db.store.transaction(async (tx) => tx.notify("items", "after stop"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual(["committed"]);
  });

  it("wakes a listener of another instance", async () => {
    const other = db.another();
    const heard: string[] = [];
    await other.listen("wake", (payload) => heard.push(payload));
    await db.store.transaction(async (tx) => tx.notify("wake", "from the first"));
    await until(() => heard.length === 1, "the other instance's notification");
    expect(heard).toEqual(["from the first"]);
  });

  it("serialises transactions that lock the same key, across instances", async () => {
    await db.store.run("INSERT INTO items (seq, name, size) VALUES (1, 'counter', 0)");
    const stores = [db.store, db.another(), db.another()];
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        stores[i % 3]!.transaction(async (tx) => {
          await tx.lock("counter");
          const row = await tx.get<{ size: number }>("SELECT size FROM items WHERE seq = 1");
          await tx.run("UPDATE items SET size = ? WHERE seq = 1", [row!.size + 1]);
        }),
      ),
    );
    expect(await db.store.get("SELECT size FROM items WHERE seq = 1")).toEqual({ size: 30 });
  });

  it("a key locked twice in one transaction is still held, and (PostgreSQL) asked for once", async () => {
    await db.store.run("INSERT INTO items (seq, name, size) VALUES (1, 'counter', 0)");
    // Counts the advisory-lock statements the engine sends; every call still goes to PostgreSQL.
    const query = vi.spyOn(pg.Client.prototype, "query");
    const stores = [db.store, db.another()];
    try {
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          stores[i % 2]!.transaction(async (tx) => {
            await tx.lock("counter");
            await tx.lock("counter");
            const row = await tx.get<{ size: number }>("SELECT size FROM items WHERE seq = 1");
            await tx.lock("counter");
            await tx.run("UPDATE items SET size = ? WHERE seq = 1", [row!.size + 1]);
          }),
        ),
      );
      const locks = query.mock.calls.filter(([config]) =>
        JSON.stringify(config).includes("pg_advisory_xact_lock"),
      );
      expect(locks).toHaveLength(engine.name === "postgres" ? 10 : 0);
    } finally {
      query.mockRestore();
    }
    expect(await db.store.get("SELECT size FROM items WHERE seq = 1")).toEqual({ size: 10 });
  });

  it("a transaction without synchronous commit still commits; on PostgreSQL it is set with BEGIN, in one round trip", async () => {
    // Counts the statements the engine sends; every call still goes to PostgreSQL.
    const query = vi.spyOn(pg.Client.prototype, "query");
    try {
      const setting = await db.store.transaction(
        async (tx) => {
          await tx.run("INSERT INTO items (seq, name) VALUES (1, 'hit')");
          return engine.name === "postgres" ? await tx.get("SHOW synchronous_commit") : undefined;
        },
        { synchronousCommit: false },
      );
      if (engine.name === "postgres") {
        expect(setting).toEqual({ synchronous_commit: "off" });
        // BEGIN with the setting, the INSERT, SHOW, COMMIT: the setting costs no round trip of its own.
        expect(query).toHaveBeenCalledTimes(4);
        expect(query.mock.calls[0]![0]).toBe("BEGIN; SET LOCAL synchronous_commit TO OFF");
      }
    } finally {
      query.mockRestore();
    }
    expect(await db.store.get("SELECT name FROM items WHERE seq = 1")).toEqual({ name: "hit" });
  });

  it("retries serializable transactions that conflict, so every increment lands once", async () => {
    await db.store.run("INSERT INTO items (seq, name, size) VALUES (1, 'counter', 0)");
    const stores = [db.store, db.another()];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]!.transaction(
          async (tx) => {
            const row = await tx.get<{ size: number }>("SELECT size FROM items WHERE seq = 1");
            await tx.run("UPDATE items SET size = ? WHERE seq = 1", [row!.size + 1]);
          },
          { isolation: "serializable" },
        ),
      ),
    );
    expect(await db.store.get("SELECT size FROM items WHERE seq = 1")).toEqual({ size: 20 });
  });
});

describe("the PostgreSQL engine's notifications", () => {
  const schemas = useSchema();

  it("keeps a commit whose notification PostgreSQL refuses, and says so (the waiters fall back to polling)", async () => {
    const refused: unknown[] = [];
    const store = schemas.current.open({ onNotifyError: (error) => refused.push(error) });
    await store.run("CREATE TABLE items (seq INTEGER PRIMARY KEY)");
    // PostgreSQL refuses a payload of 8000 bytes or more; the commit came first and stands.
    await store.transaction(async (tx) => {
      await tx.run("INSERT INTO items (seq) VALUES (1)");
      tx.notify("items", "x".repeat(9000));
    });
    expect(await store.all("SELECT seq FROM items")).toEqual([{ seq: 1 }]);
    expect(refused).toHaveLength(1);
    expect(String(refused[0])).toMatch(/payload/i);
  });

  it("comes back after the server drops it, and wakes every listener once to look again", async () => {
    const errors: unknown[] = [];
    const listening = schemas.current.open({
      reconnectDelayMs: 50,
      onListenError: (error) => errors.push(error),
    });
    const sending = schemas.current.open();
    const heard: string[] = [];
    await listening.listen("wake", (payload) => heard.push(payload));
    const killed = await admin(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND query LIKE $1",
      [`%${schemas.current.schema}.wake%`],
    );
    expect(killed.rowCount).toBe(1);
    await until(() => heard.includes(""), "the wake-up after reconnecting");
    expect(errors.length).toBeGreaterThan(0);
    await sending.transaction(async (tx) => tx.notify("wake", "after"));
    await until(() => heard.includes("after"), "a notification on the new connection");
  });

  it("keeps each schema's notifications to itself", async () => {
    const other = await freshSchema();
    try {
      const heard: string[] = [];
      await other.open().listen("wake", (payload) => heard.push(payload));
      await schemas.current.open().transaction(async (tx) => tx.notify("wake", "elsewhere"));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heard).toEqual([]);
    } finally {
      await other.drop();
    }
  });
});
