// Every case of the shared redaction corpus (../shared/conformance/redaction, read at run time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSanitiser } from "../../../src/evidence/index.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const CORPUS = join(PROJECT_ROOT, "..", "shared", "conformance", "redaction", "redaction_cases.tsv");

interface Case {
  line: number;
  input: string;
  expected: "redact" | "keep";
  rule: string;
}

function readCases(): Case[] {
  const lines = readFileSync(CORPUS, "utf8").split("\n");
  const cases: Case[] = [];
  lines.forEach((text, index) => {
    if (index === 0 || text.trim() === "") return;
    const [raw, expected, rule] = text.split("\t") as [string, string, string];
    if (expected !== "redact" && expected !== "keep") throw new Error(`line ${index + 1}: bad expectation`);
    const input = raw.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
    cases.push({ line: index + 1, input, expected, rule });
  });
  return cases;
}

/** Secret parts that the generic rule below cannot pick out (URL passwords, curl credentials). */
const SECRET_PART_BY_LINE: Record<number, string> = {
  41: "password",
  42: "secret123",
  43: "secur3Pass",
  44: "password",
  45: "P@ssw0rd$1",
};

/** The secret part of a `redact` case: its longest run of token characters, or the listed exception. */
function secretPart(testCase: Case): string {
  const listed = SECRET_PART_BY_LINE[testCase.line];
  if (listed !== undefined) return listed;
  const runs = testCase.input.split(/[\s"'`,;:()=]+/).sort((a, b) => b.length - a.length);
  return runs[0] as string;
}

/** Every 12-character piece of `part` (the whole part when shorter). */
function pieces(part: string): string[] {
  if (part.length <= 12) return [part];
  return Array.from({ length: part.length - 11 }, (_, i) => part.slice(i, i + 12));
}

const cases = readCases();

// Both candidate-scan engines must pass the whole corpus (the WebAssembly one is the default).
for (const engine of ["wasm", "js"] as const) {
  const sanitiser = createSanitiser({ engine });

  describe(`redaction conformance corpus (${engine} scan)`, () => {
    it("has the corpus's cases", () => {
      expect(cases.length).toBeGreaterThan(70);
    });

    for (const testCase of cases.filter((c) => c.expected === "keep")) {
      it(`line ${testCase.line} keeps ${testCase.rule}`, () => {
        const result = sanitiser.sanitise(testCase.input);
        expect(result.text).toBe(testCase.input);
        expect(result.redactions).toEqual({});
      });
    }

    for (const testCase of cases.filter((c) => c.expected === "redact")) {
      it(`line ${testCase.line} redacts ${testCase.rule}`, () => {
        const result = sanitiser.sanitise(testCase.input);
        expect(result.text).toContain("[REDACTED:");
        expect(Object.values(result.redactions).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
        const withoutMarkers = result.text.replace(/\[REDACTED:[a-z_]+\]/g, "");
        const leaked = pieces(secretPart(testCase)).filter((piece) => withoutMarkers.includes(piece));
        expect({ text: result.text, leaked }).toEqual({ text: result.text, leaked: [] });
      });
    }
  });
}
