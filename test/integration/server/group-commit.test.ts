// Group commit on a real SQLite file: work queued in one event-loop turn shares one transaction, yet each piece
// behaves as if it had its own (sees earlier pieces' writes, a throw rolls back only itself), and nothing is
// reported done before the shared COMMIT.
import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../../src/server/index.js";
import { commitSoon } from "../../../src/server/store/group-commit.js";
import type { Database } from "../../../src/server/store/sqlite.js";

let dir: string;
let db: Database;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-group-commit-"));
  db = await openDatabase(join(dir, "s.sqlite"));
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
});
afterEach(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

const rows = () => db.prepare("SELECT k, v FROM t ORDER BY k").all();

describe("commitSoon", () => {
  it("work queued together commits in one transaction; a piece that throws rolls back only its own writes", async () => {
    // WAL frames written: every commit appends the pages it changed, so one shared commit of three pieces
    // appends what one single-row commit does, where three commits would append three times as much.
    const walFrames = () => (statSync(`${dir}/s.sqlite-wal`).size - 32) / (24 + 4096);
    const insert = (k: string, v: number) => db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v);
    let before = walFrames();
    await commitSoon(db, () => insert("0", 0));
    const oneCommit = walFrames() - before;

    before = walFrames();
    const first = commitSoon(db, () => {
      insert("a", 1);
      return "a";
    });
    const failing = commitSoon(db, () => {
      insert("b", 2);
      throw new Error("refused after writing");
    });
    const third = commitSoon(db, () => {
      // Sees the first piece's write, not the rolled-back second one.
      insert("c", rows().length);
      return "c";
    });
    expect(rows()).toEqual([{ k: "0", v: 0 }]); // nothing runs before the batch flushes
    await expect(first).resolves.toBe("a");
    await expect(failing).rejects.toThrow("refused after writing");
    await expect(third).resolves.toBe("c");
    expect(rows()).toEqual([
      { k: "0", v: 0 },
      { k: "a", v: 1 },
      { k: "c", v: 2 },
    ]);
    expect(walFrames() - before).toBe(oneCommit);
  });

  it("a promise resolves only once its transaction has committed (readable from another connection)", async () => {
    const { DatabaseSync } = await import("node:sqlite");
    const observer = new DatabaseSync(join(dir, "s.sqlite"));
    await commitSoon(db, () => db.prepare("INSERT INTO t (k, v) VALUES ('x', 7)").run());
    expect(observer.prepare("SELECT v FROM t WHERE k = 'x'").get()).toEqual({ v: 7 });
    observer.close();
  });

  it("work queued in a later turn goes into a later transaction", async () => {
    await commitSoon(db, () => db.prepare("INSERT INTO t (k, v) VALUES ('a', 1)").run());
    const second = commitSoon(db, () => db.prepare("INSERT INTO t (k, v) VALUES ('a', 2)").run());
    await expect(second).rejects.toThrow(/UNIQUE/);
    expect(rows()).toEqual([{ k: "a", v: 1 }]);
  });
});
