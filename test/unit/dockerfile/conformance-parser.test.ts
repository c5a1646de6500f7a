// BuildKit's parser vectors (../shared/conformance/buildkit/parser), read at run time: every file must give
// BuildKit's dump, every negative file must be refused with an error naming a line, line numbers must agree.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDockerfile } from "../../../src/dockerfile/parse.js";
import { InputError } from "../../../src/errors.js";
import { dumpInstruction } from "./buildkit-dump.js";
import { CONFORMANCE_DIR, type Outcome, summarise } from "./conformance.js";

const PARSER_DIR = join(CONFORMANCE_DIR, "parser");

describe("BuildKit parser conformance", () => {
  it("parser/testfiles: each Dockerfile parses to BuildKit's result dump", () => {
    const outcomes: Outcome[] = [];
    for (const name of readdirSync(join(PARSER_DIR, "testfiles")).sort()) {
      const dir = join(PARSER_DIR, "testfiles", name);
      const expected = readFileSync(join(dir, "result"), "utf8");
      let got: string;
      try {
        const parsed = parseDockerfile(readFileSync(join(dir, "Dockerfile"), "utf8"));
        got = parsed.instructions.map((i) => `${dumpInstruction(i)}\n`).join("");
      } catch (error) {
        got = `error: ${(error as Error).message}`;
      }
      outcomes.push({ name: `${name}\n--- got\n${got}--- expected\n${expected}`, ok: got === expected });
    }
    expect(outcomes.length).toBeGreaterThanOrEqual(30);
    expect(summarise("parser/testfiles", outcomes)).toEqual([]);
  });

  it("parser/testfiles-negative: each Dockerfile is refused with an InputError naming a line", () => {
    const outcomes: Outcome[] = [];
    for (const name of readdirSync(join(PARSER_DIR, "testfiles-negative")).sort()) {
      const text = readFileSync(join(PARSER_DIR, "testfiles-negative", name, "Dockerfile"), "utf8");
      let ok = false;
      let got = "parsed";
      try {
        parseDockerfile(text);
      } catch (error) {
        got = (error as Error).message;
        ok = error instanceof InputError && /^Dockerfile line \d+: /.test(got);
      }
      outcomes.push({ name: `${name} (${got})`, ok });
    }
    expect(outcomes.length).toBe(4);
    expect(summarise("parser/testfiles-negative", outcomes)).toEqual([]);
  });

  it("parser/testfile-line: start and end lines match BuildKit's across blank lines and continuations", () => {
    // The expected ranges are BuildKit's TestParseLineInformation assertions for this file.
    const parsed = parseDockerfile(readFileSync(join(PARSER_DIR, "testfile-line", "Dockerfile"), "utf8"));
    const ranges = parsed.instructions.map((i) => [i.startLine, i.endLine]);
    const expected = [
      [5, 5],
      [11, 12],
      [17, 31],
    ];
    const outcomes = expected.map((range, i) => ({
      name: `instruction ${i}: ${JSON.stringify(ranges[i])} vs ${JSON.stringify(range)}`,
      ok: JSON.stringify(ranges[i]) === JSON.stringify(range),
    }));
    expect(summarise("parser/testfile-line", outcomes)).toEqual([]);
    expect(parsed.directives).toEqual([{ name: "escape", value: "\\", line: 1 }]);
  });
});
