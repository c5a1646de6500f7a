// The store keeps SQLite's savepoint journals in memory: every item of a group commit runs in its own savepoint,
// and a journal spilled to a temporary file cost a write system call for every page a savepoint touched.
import { readdirSync, readlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Store } from "../../../src/server/store/store.js";
import { openSqliteStore } from "../../helpers/sqlite-store.js";

let db: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await db?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  db = dir = undefined;
});

/** Files this process has open whose name SQLite gives its temporary files. */
const openTemporaryFiles = () =>
  readdirSync("/proc/self/fd").flatMap((fd) => {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      return target.includes("etilqs_") ? [target] : [];
    } catch {
      return [];
    }
  });

describe("savepoint journals", () => {
  it("a group commit whose savepoints each rewrite 20 pages opens no temporary file", async () => {
    dir = await mkdtemp(join(tmpdir(), "baton-temp-files-"));
    const store = await openSqliteStore(join(dir, "s.sqlite"));
    db = store;
    await store.run("CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    await store.transaction(async (tx) => {
      for (let id = 0; id < 400; id++)
        await tx.run("INSERT INTO scratch (id, body) VALUES (?, ?)", [id, "a".repeat(3000)]);
    });
    const seen: string[][] = [];
    // One row per page; SQLite keeps up to 64 KiB (16 pages) of a savepoint's journal in memory by default.
    await Promise.all(
      Array.from({ length: 20 }, (_, item) =>
        store.transaction(async (tx) => {
          for (let row = 0; row < 20; row++)
            await tx.run("UPDATE scratch SET body = ? WHERE id = ?", ["b".repeat(3000), item * 20 + row]);
          seen.push(openTemporaryFiles());
        }),
      ),
    );
    expect(seen.flat()).toEqual([]);
    expect(await store.get("SELECT COUNT(*) AS n FROM scratch WHERE body LIKE 'a%'")).toEqual({ n: 0 });
  });
});
