// PostgreSQL numbers its placeholders; the store's queries use `?`. Only a `?` in code is one: inside quoted
// text, a quoted identifier or a comment it is a question mark.
import { describe, expect, it } from "vitest";
import { numberPlaceholders } from "../../../../src/server/store/placeholders.js";

describe("numberPlaceholders", () => {
  it.each([
    ["SELECT 1", "SELECT 1"],
    ["SELECT * FROM t WHERE a = ? AND b = ?", "SELECT * FROM t WHERE a = $1 AND b = $2"],
    ["SELECT '?' , ? FROM t", "SELECT '?' , $1 FROM t"],
    ["SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"],
    ['SELECT "odd?name" FROM t WHERE x = ?', 'SELECT "odd?name" FROM t WHERE x = $1'],
    ["SELECT ? -- why?\n, ?", "SELECT $1 -- why?\n, $2"],
    ["SELECT /* ? */ ?", "SELECT /* ? */ $1"],
    ["SELECT 'never closed ?", "SELECT 'never closed ?"],
  ])("%j becomes %j", (sql, expected) => {
    expect(numberPlaceholders(sql)).toBe(expected);
  });
});
