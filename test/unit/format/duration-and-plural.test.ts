import { describe, expect, it } from "vitest";
import { countOf, formatDuration } from "../../../src/format/index.js";

describe("one duration format everywhere (progress, Dockerfile steps, disclosure)", () => {
  it.each([
    [0, "0 ms"],
    [23, "23 ms"],
    [999.4, "999 ms"],
    [1_000, "1.0 s"],
    [9_949, "9.9 s"],
    [12_345, "12 s"],
    [59_999, "59 s"],
    [61_000, "1 min 01 s"],
    [3_600_000, "60 min 00 s"],
    [-5, "0 ms"],
  ])("%i ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it("a short step is shown in milliseconds, never as 0.0 s", () => {
    expect(formatDuration(23)).not.toMatch(/0\.0/);
  });
});

describe("counts agree with their nouns", () => {
  it.each([
    [0, "RUN step", undefined, "0 RUN steps"],
    [1, "RUN step", undefined, "1 RUN step"],
    [2, "variable", undefined, "2 variables"],
    [1, "entry", "entries", "1 entry"],
    [3, "entry", "entries", "3 entries"],
  ])("%i %s", (count, singular, plural, text) => {
    expect(countOf(count, singular, plural)).toBe(text);
  });
});
