// The pure rules of copying a store: table order by foreign keys, batch sizes, the SQL texts, and the normal form
// both engines' values are digested in.
import { describe, expect, it } from "vitest";
import {
  insertStatement,
  orderTablesForCopy,
  readOrder,
  rowsPerInsert,
  type TableShape,
} from "../../../../src/server/store/copy-plan.js";
import { normaliseValue, RowDigest } from "../../../../src/server/store/row-digest.js";

const table = (
  name: string,
  references: string[] = [],
  columns = ["id"],
  primaryKey = ["id"],
): TableShape => ({
  name,
  columns,
  primaryKey,
  references,
});

describe("orderTablesForCopy", () => {
  it.each([
    ["no references: by name", [table("b"), table("a"), table("c")], ["a", "b", "c"]],
    ["a table after the one it references", [table("a", ["b"]), table("b")], ["b", "a"]],
    ["a chain", [table("c", ["b"]), table("b", ["a"]), table("a")], ["a", "b", "c"]],
    ["two parents", [table("child", ["p2", "p1"]), table("p2"), table("p1")], ["p1", "p2", "child"]],
    ["a reference to itself imposes nothing", [table("tree", ["tree"])], ["tree"]],
    ["a reference outside the list imposes nothing", [table("a", ["gone"])], ["a"]],
  ])("%s", (_rule, tables, expected) => {
    expect(orderTablesForCopy(tables).map((t) => t.name)).toEqual(expected);
  });

  it("names the tables whose references go round in a circle", () => {
    expect(() => orderTablesForCopy([table("a", ["b"]), table("b", ["a"]), table("c")])).toThrow(
      /go round in a circle: a, b$/,
    );
  });
});

describe("rowsPerInsert", () => {
  it.each([
    [1, 1_000],
    [30, 1_000],
    [60, 500],
    [30_000, 1],
    [100_000, 1],
  ])(
    "a table of %i columns: %i rows per INSERT (never past PostgreSQL's 65,535 parameters)",
    (columns, rows) => {
      expect(rowsPerInsert(columns)).toBe(rows);
      expect(rows * columns).toBeLessThanOrEqual(65_535 > columns ? Math.max(30_000, columns) : columns);
    },
  );
});

describe("the SQL texts", () => {
  it("an INSERT of several rows keeps identity values and quotes every name", () => {
    expect(insertStatement(table('odd "name"', [], ["a", "b"]), 2)).toBe(
      'INSERT INTO "odd ""name""" ("a", "b") OVERRIDING SYSTEM VALUE VALUES (?, ?), (?, ?)',
    );
  });

  it.each([
    [
      "the primary key, text by bytes",
      table("t", [], ["k", "n", "v"], ["k", "n"]),
      '"k" COLLATE "C" ASC NULLS FIRST, "n" ASC NULLS FIRST',
    ],
    [
      "every column without a primary key",
      table("t", [], ["k", "v"], []),
      '"k" COLLATE "C" ASC NULLS FIRST, "v" ASC NULLS FIRST',
    ],
  ])("reads in %s", (_rule, shape, expected) => {
    expect(readOrder(shape, new Set(["k"]))).toBe(expected);
  });
});

describe("normaliseValue", () => {
  it.each([
    ["NULL", null, "N"],
    ["an integer as a number (int8 read back)", 42, "V42"],
    ["the same integer as a bigint (SQLite)", 42n, "V42"],
    ["an integer past 2^53", 2n ** 60n, "V1152921504606846976"],
    ["a real", 0.1, "V0.1"],
    ["true as 1", true, "V1"],
    ["false as 0", false, "V0"],
    ["text", "ü", "Vü"],
    ["empty text, not NULL", "", "V"],
    ["bytes in hex", new Uint8Array([0, 255]), "B00ff"],
    ["a Buffer as the same bytes", Buffer.from([0, 255]), "B00ff"],
  ])("%s", (_kind, value, expected) => {
    expect(normaliseValue(value)).toBe(expected);
  });

  it("rows that differ only in where one value ends and the next begins digest differently", () => {
    const one = new RowDigest();
    one.add(["ab", "c"]);
    const two = new RowDigest();
    two.add(["a", "bc"]);
    expect(one.finish().digest).not.toBe(two.finish().digest);
  });

  it("the same values from either engine digest the same", () => {
    const sqlite = new RowDigest();
    sqlite.add([1n, "x", new Uint8Array([1]), null]);
    const postgres = new RowDigest();
    postgres.add([1, "x", Buffer.from([1]), null]);
    expect(postgres.finish()).toEqual(sqlite.finish());
  });
});
