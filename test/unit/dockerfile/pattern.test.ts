// The shell-pattern matcher of `${v#p}`, `${v##p}`, `${v%p}`, `${v%%p}`, `${v/p/r}` and `${v//p/r}`: BuildKit's
// answers (Go's leftmost-first regular expressions) without backtracking, in bounded work.
import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ExpansionError, processWord } from "../../../src/dockerfile/lexer.js";
import { createExpansionBudget } from "../../../src/dockerfile/limits.js";
import { trimPatternPrefix, trimPatternSuffix } from "../../../src/dockerfile/pattern.js";
import { expandReplacementTemplate, replacePattern } from "../../../src/dockerfile/replace-pattern.js";
import {
  oracleReplaceAll,
  oracleReplaceFirst,
  oracleTrimPrefix,
  oracleTrimSuffix,
} from "./regex-pattern-oracle.js";

type Operator = "#" | "##" | "%" | "%%" | "/" | "//";
const OPERATORS: Operator[] = ["#", "##", "%", "%%", "/", "//"];

function ours(op: Operator, pattern: string, value: string, replacement = "<>"): string {
  const budget = createExpansionBudget();
  switch (op) {
    case "#":
    case "##":
      return trimPatternPrefix(pattern, value, op === "##", budget);
    case "%":
    case "%%":
      return trimPatternSuffix(pattern, value, op === "%%", budget);
    default:
      return replacePattern(pattern, value, replacement, { all: op === "//", budget });
  }
}

function oracle(op: Operator, pattern: string, value: string, replacement = "<>"): string {
  switch (op) {
    case "#":
    case "##":
      return oracleTrimPrefix(pattern, value, op === "##");
    case "%":
    case "%%":
      return oracleTrimSuffix(pattern, value, op === "%%");
    case "/":
      return oracleReplaceFirst(pattern, value, replacement);
    default:
      return oracleReplaceAll(pattern, value, replacement);
  }
}

describe("shell patterns", () => {
  it.each<[Operator, string, string, string]>([
    ["#", "*a", "xaya", "ya"],
    ["##", "*a", "xaya", ""],
    ["%", "a*", "xaya", "xay"],
    ["%%", "a*", "xaya", "x"],
    ["/", "a*a", "xaya", "x<>"],
    ["//", "a", "xaya", "x<>y<>"],
    // `*` and `?` stop at a newline, as Go's `.` does; a literal newline in the pattern matches one.
    ["##", "*", "ab\ncd", "\ncd"],
    ["##", "*\n*", "ab\ncd\nef", "\nef"],
    ["#", "?", "\nx", "\nx"],
    ["%%", "*", "ab\ncd", "ab\n"],
    ["/", "b*d", "ab\ncd", "ab\ncd"],
    ["/", "b\n*", "ab\ncd\ne", "a<>\ne"],
    // Go's ReplaceAll: an empty match right after a match is not replaced; one at the start is.
    ["//", "*", "ab\ncd", "<>\n<>"],
    ["//", "", "ab", "<>a<>b<>"],
    ["//", "x", "axxbx", "a<><>b<>"],
    // Code points, not UTF-16 units: `?` takes a whole astral character.
    ["#", "?", "😀x", "x"],
    ["/", "?x", "a😀x", "a<>"],
  ])("%s %j on %j gives %j", (op, pattern, value, expected) => {
    expect(ours(op, pattern, value)).toBe(expected);
  });

  it("`${v//p/r}` reads the replacement as Go's template: $0 and ${0} are the match, $$ is $, other names empty", () => {
    expect(expandReplacementTemplate("[$0|${0}|$$|$1|${x}|$ |${0|$", "ab")).toBe("[ab|ab|$|||$ |${0|$");
    expect(expandReplacementTemplate("$0x", "ab")).toBe("");
    const env = new Map([
      ["V", "a-b"],
      ["R", "<$0>"],
    ]);
    expect(processWord("${V//?/$R}", env).value).toBe("<a><-><b>");
    // The single form replaces literally, as BuildKit does.
    expect(processWord("${V/?/$R}", env).value).toBe("<$0>-b");
  });

  it("a crafted pattern that makes a backtracking matcher explode is answered in linear work", () => {
    const value = "a".repeat(100_000);
    const pattern = `${"*a".repeat(2_000)}*b`;
    for (const op of OPERATORS) expect(ours(op, pattern, value)).toBe(value);
    expect(ours("##", `${"*a".repeat(2_000)}*`, value)).toBe("");
  });

  it("work past the Dockerfile's expansion budget is an error, not a long wait", () => {
    const value = "a".repeat(120_000);
    const pattern = `${"a".repeat(1_000)}b`;
    const budget = createExpansionBudget();
    expect(() => replacePattern(pattern, value, "", { all: true, budget })).toThrow(ExpansionError);
    expect(() => replacePattern(pattern, value, "", { all: true, budget })).toThrow(/takes more than/);
  });

  it("agrees with the backtracking RegExp translation on random small patterns and values (property)", () => {
    const patternToken = fc.constantFrom("a", "b", "\n", "*", "*", "?", "\\*", "\\?", "\\\\", "😀", ".");
    const valueToken = fc.constantFrom("a", "b", "a", "b", "\n", "*", "?", "\\", "😀", ".");
    fc.assert(
      fc.property(
        fc.constantFrom(...OPERATORS),
        fc.array(patternToken, { maxLength: 7 }).map((t) => t.join("")),
        fc.array(valueToken, { maxLength: 14 }).map((t) => t.join("")),
        (op, pattern, value) => {
          expect(ours(op, pattern, value)).toBe(oracle(op, pattern, value));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("agrees with bash's own ${v#p} ${v##p} ${v%p} ${v%%p} ${v/p/r} ${v//p/r} (property, real bash)", () => {
    const cases = fc
      .sample(
        fc.record({
          op: fc.constantFrom(...OPERATORS),
          pattern: fc.array(fc.constantFrom("a", "b", "*", "?"), { minLength: 1, maxLength: 6 }),
          value: fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 10 }),
        }),
        { numRuns: 600, seed: 26 },
      )
      .map(({ op, pattern, value }) => ({ op, pattern: pattern.join(""), value: value.join("") }))
      // bash replaces matches of the empty string differently from Go; BuildKit follows Go (tested above).
      .filter(({ op, pattern }) => !op.startsWith("/") || /[ab?]/.test(pattern));
    const script = cases
      .map(({ op, pattern, value }, i) => {
        const expansion = op.startsWith("/") ? `\${v${op}$p/<>}` : `\${v${op}$p}`;
        return `v='${value}'; p='${pattern}'; printf '%s\\0' "${expansion}" # ${i}`;
      })
      .join("\n");
    const bash = execFileSync("bash", ["--norc", "--noprofile", "-c", script], { encoding: "utf8" }).split(
      "\0",
    );
    cases.forEach(({ op, pattern, value }, i) => {
      expect({ op, pattern, value, got: ours(op, pattern, value) }).toEqual({
        op,
        pattern,
        value,
        got: bash[i],
      });
    });
  });
});
