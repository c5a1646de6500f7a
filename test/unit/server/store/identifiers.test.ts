// Names the store's generic helpers put into SQL text: only plain identifiers pass, so none carries SQL.
import { describe, expect, it } from "vitest";
import { checkIdentifier, checkOrderBy } from "../../../../src/server/store/identifiers.js";

describe("a table or column name", () => {
  it.each(["jobs", "_jobs", "rate_windows", "t2", "a".repeat(63)])("%s is a plain identifier", (name) => {
    expect(checkIdentifier(name, "the table")).toBe(name);
  });
  it.each([
    ["", "empty"],
    ["Jobs", "upper case (PostgreSQL would fold it, SQLite would not)"],
    ["2jobs", "starts with a digit"],
    ["jobs; DROP TABLE x", "carries SQL"],
    ['"jobs"', "quoted"],
    ["a".repeat(64), "longer than PostgreSQL's 63"],
  ])("%j is refused (%s), naming what to use", (name) => {
    expect(() => checkIdentifier(name, "the claim table")).toThrow(
      `the claim table ${JSON.stringify(name)} is not a plain identifier: use lower-case letters, digits and _`,
    );
  });
});

describe("a claim order", () => {
  it.each([
    ["id", "id"],
    ["created_ms, id", "created_ms, id"],
    ["created_ms DESC,id asc", "created_ms DESC, id asc"],
  ])("%j lists plain columns", (order, normalised) => {
    expect(checkOrderBy(order)).toBe(normalised);
  });
  it.each(["", "id;", "id, ", "random()", "id DESC NULLS FIRST", "Id"])("%j is refused", (order) => {
    expect(() => checkOrderBy(order)).toThrow(
      "must list plain column names, each optionally followed by ASC or DESC",
    );
  });
});
