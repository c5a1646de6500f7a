// BuildKit's own lexer vectors (../shared/conformance/buildkit), read at run time: every Linux case must pass.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { environmentFromList, processWord } from "../../../src/dockerfile/lexer.js";
import { CONFORMANCE_DIR, type Outcome, summarise } from "./conformance.js";

function attempt<T>(fn: () => T): T | "error" {
  try {
    return fn();
  } catch {
    return "error";
  }
}

describe("BuildKit lexer conformance", () => {
  it("envVarTest: every A and U case expands to BuildKit's word (W is Windows-only)", () => {
    const env = environmentFromList(["PWD=/home", "SHELL=bash", "KOREAN=한국어", "NULL="]);
    const outcomes: Outcome[] = [];
    for (const line of readFileSync(join(CONFORMANCE_DIR, "envVarTest"), "utf8").split("\n")) {
      if (line.startsWith("#") || line.trim() === "") continue;
      const fields = line.split("|");
      expect(fields).toHaveLength(3);
      const [platform, input, expected] = fields.map((f) => f.trim()) as [string, string, string];
      if (platform.toUpperCase() === "W") continue;
      const got = attempt(() => processWord(input, env).value);
      outcomes.push({ name: `${input} -> ${expected} (got ${got})`, ok: got === expected });
    }
    expect(outcomes.length).toBe(228);
    expect(summarise("envVarTest", outcomes)).toEqual([]);
  });

  it("wordsTest: expansion then splitting on unquoted whitespace gives BuildKit's words", () => {
    const envList: string[] = [];
    const outcomes: Outcome[] = [];
    for (const line of readFileSync(join(CONFORMANCE_DIR, "wordsTest"), "utf8").split("\n")) {
      if (line.startsWith("#") || line.trim() === "") continue;
      if (line.startsWith("ENV ")) {
        envList.push(line.slice(4).replace(/^\s+/, ""));
        continue;
      }
      const fields = line.split("|");
      expect(fields).toHaveLength(2);
      const input = fields[0]!.trim();
      const expected = fields[1]!.replace(/^\s+/, "").split(",");
      const got = attempt(() => processWord(input, environmentFromList(envList)).words);
      const words = got === "error" ? ["error"] : got;
      outcomes.push({
        name: `${input} -> ${JSON.stringify(expected)} (got ${JSON.stringify(words)})`,
        ok: JSON.stringify(words) === JSON.stringify(expected),
      });
    }
    expect(outcomes.length).toBe(24);
    expect(summarise("wordsTest", outcomes)).toEqual([]);
  });

  it("envVarTest.json and wordsTest.json agree with the plain-text vectors", () => {
    const envVar = JSON.parse(readFileSync(join(CONFORMANCE_DIR, "envVarTest.json"), "utf8"));
    const env = new Map<string, string>(Object.entries(envVar.env as Record<string, string>));
    const outcomes: Outcome[] = [];
    for (const c of envVar.cases as {
      platform: string;
      input: string;
      expected?: string;
      error?: boolean;
    }[]) {
      if (c.platform.toUpperCase() === "W") continue;
      const got = attempt(() => processWord(c.input, env).value);
      outcomes.push({
        name: `${c.input} (got ${got})`,
        ok: got === (c.error === true ? "error" : c.expected),
      });
    }
    expect(summarise("envVarTest.json", outcomes)).toEqual([]);
    const words = JSON.parse(readFileSync(join(CONFORMANCE_DIR, "wordsTest.json"), "utf8"));
    const wordOutcomes: Outcome[] = [];
    for (const c of words.cases as {
      input: string;
      env: string[];
      expected_words?: string[];
      error?: boolean;
    }[]) {
      const got = attempt(() => processWord(c.input, environmentFromList(c.env)).words);
      const result = got === "error" ? ["error"] : got;
      wordOutcomes.push({
        name: `${c.input} (got ${JSON.stringify(result)})`,
        ok: JSON.stringify(result) === JSON.stringify(c.error === true ? ["error"] : c.expected_words),
      });
    }
    expect(summarise("wordsTest.json", wordOutcomes)).toEqual([]);
  });

  it("processWithMatches.json: #, ##, %, %%, /, //, ?, :? and mandatory messages, with matched names", () => {
    const doc = JSON.parse(readFileSync(join(CONFORMANCE_DIR, "processWithMatches.json"), "utf8"));
    type Case = {
      input: string;
      envs: Record<string, string>;
      expected?: string;
      error?: boolean;
      errorContains?: string;
      matched?: string[];
      unmatched?: string[];
    };
    const outcomes: Outcome[] = [];
    for (const c of [...(doc.cases as Case[]), ...(doc.extra_cases as Case[])]) {
      const env = new Map(Object.entries(c.envs));
      let ok: boolean;
      let got: string;
      try {
        const result = processWord(c.input, env);
        got = result.value;
        ok =
          c.error !== true &&
          result.value === c.expected &&
          (c.matched === undefined || sameSet(result.matched, c.matched)) &&
          (c.unmatched === undefined || sameSet(result.unmatched, c.unmatched));
      } catch (error) {
        got = `error: ${(error as Error).message}`;
        ok = c.error === true && (c.errorContains === undefined || got.includes(c.errorContains));
      }
      outcomes.push({ name: `${c.input} ${JSON.stringify(c.envs)} (got ${got})`, ok });
    }
    expect(outcomes.length).toBe(56);
    expect(summarise("processWithMatches.json", outcomes)).toEqual([]);
  });
});

function sameSet(got: Set<string>, expected: string[]): boolean {
  return got.size === expected.length && expected.every((name) => got.has(name));
}
