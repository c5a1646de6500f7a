// nestsDeeperThan: objects and arrays count, brackets inside strings (also after an escaped quote) do not.
import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../../../../src/server/surfaces/http/json-depth.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("nestsDeeperThan counts only structural brackets", () => {
  it.each([
    ["{}", 1, false],
    ["{}", 0, true],
    ['{"a":[{"b":[]}]}', 4, false],
    ['{"a":[{"b":[]}]}', 3, true],
    ["[[],[],[]]", 2, false],
    ['{"s":"[[[[{{{{"}', 1, false],
    ['{"s":"\\"[[[["}', 1, false],
    ['{"s":"\\\\"}', 1, false],
    ['{"s":"\\\\","t":[[]]}', 2, true],
    ['{"é":"ü[[[["}', 1, false],
    ["not json", 1, false],
  ] as const)("%j with at most %i levels: deeper is %s", (text, max, deeper) => {
    expect(nestsDeeperThan(bytes(text), max)).toBe(deeper);
  });

  it("10,000 levels are found without recursion", () => {
    expect(nestsDeeperThan(bytes(`${"[".repeat(10_000)}${"]".repeat(10_000)}`), 64)).toBe(true);
  });
});
