// The SQL the domain writes once for both engines, held to the same answers on each: a JSON array bound as the
// list of `x IN (…)` (store.dialect.jsonArrayValues), "the later of the column and a value" as CASE (SQLite's
// two-argument MAX has no PostgreSQL twin), and read-highest-then-add numbering under `tx.lock`, which on
// PostgreSQL is what keeps two instances from taking one number.
import { describe, expect, it } from "vitest";
import { ENGINES, useEngine } from "../../../helpers/postgres.js";

describe.each(ENGINES)("portable SQL on the $name engine", (engine) => {
  const db = useEngine(
    engine,
    "CREATE TABLE items (name TEXT PRIMARY KEY, seen_at_ms BIGINT NOT NULL)",
    "CREATE TABLE numbered (repo TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (repo, number))",
  );

  it.each([
    { list: ["a", "c"], found: ["a", "c"] },
    { list: [], found: [] },
    { list: ["it's", "ünï"], found: ["it's", "ünï"] },
    { list: ["missing"], found: [] },
  ])("jsonArrayValues: IN a JSON array of $list finds $found", async ({ list, found }) => {
    for (const name of ["a", "b", "c", "it's", "ünï"])
      await db.store.run("INSERT INTO items (name, seen_at_ms) VALUES (?, ?)", [name, 0]);
    const rows = await db.store.all<{ name: string }>(
      `SELECT name FROM items WHERE name IN (${db.store.dialect.jsonArrayValues}) ORDER BY name`,
      [JSON.stringify(list)],
    );
    expect(rows.map((row) => row.name)).toEqual(found);
  });

  it.each([
    { rule: "a later value moves it forward", given: 2_000, stays: 2_000 },
    { rule: "an earlier value leaves it", given: 500, stays: 1_000 },
    { rule: "the same value leaves it", given: 1_000, stays: 1_000 },
  ])("the later of the column and a value: $rule", async ({ given, stays }) => {
    await db.store.run("INSERT INTO items (name, seen_at_ms) VALUES (?, ?)", ["a", 1_000]);
    await db.store.run(
      "UPDATE items SET seen_at_ms = CASE WHEN seen_at_ms > ? THEN seen_at_ms ELSE ? END WHERE name = ?",
      [given, given, "a"],
    );
    expect(await db.store.get("SELECT seen_at_ms FROM items WHERE name = ?", ["a"])).toEqual({
      seen_at_ms: stays,
    });
  });

  it("20 simultaneous 'highest + 1' inserts from two stores under one lock take 20 different numbers", async () => {
    const stores = [db.store, db.another()];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]!.transaction(async (tx) => {
          await tx.lock("numbering:acme/api");
          const next = await tx.get<{ n: number }>(
            "SELECT coalesce(max(number), 0) + 1 AS n FROM numbered WHERE repo = ?",
            ["acme/api"],
          );
          await tx.run("INSERT INTO numbered (repo, number) VALUES (?, ?)", ["acme/api", next!.n]);
        }),
      ),
    );
    const rows = await db.store.all<{ number: number }>("SELECT number FROM numbered ORDER BY number");
    expect(rows.map((row) => row.number)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
