// Hostile Dockerfiles end in an InputError naming the line (or plan correctly) after bounded work: no hang,
// no exhausted stack or memory. `npm run bench -- dockerfile` times each case.
import { describe, expect, it } from "vitest";
import { HOSTILE_DOCKERFILES } from "../../../fixtures/dockerfiles/hostile.mjs";
import {
  MAX_CARRIED_ENVIRONMENT,
  MAX_COPIED_VARIABLES,
  MAX_EXPANSION_WORK,
  MAX_INSTRUCTIONS,
  MAX_NESTING,
  MAX_VALUE_LENGTH,
} from "../../../src/dockerfile/limits.js";
import { matchDirective } from "../../../src/dockerfile/parse.js";
import { planDockerfile } from "../../../src/dockerfile/plan.js";
import { InputError } from "../../../src/errors.js";

function refusal(text: string): InputError {
  try {
    planDockerfile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error("expected the Dockerfile to be refused");
}

describe("hostile Dockerfiles", () => {
  it("the bounds are the ones the README states", () => {
    expect([
      MAX_VALUE_LENGTH,
      MAX_NESTING,
      MAX_INSTRUCTIONS,
      MAX_EXPANSION_WORK,
      MAX_CARRIED_ENVIRONMENT,
      MAX_COPIED_VARIABLES,
    ]).toEqual([131_072, 64, 10_000, 16_000_000, 16_777_216, 250_000]);
  });

  it.each(HOSTILE_DOCKERFILES.filter((c) => c.refused !== null).map((c) => [c.name, c] as const))(
    "%s is refused with an error naming its line",
    (_name, hostile) => {
      const error = refusal(hostile.text());
      const { line, message } = hostile.refused!;
      expect(error.message).toMatch(new RegExp(`^Dockerfile line ${line}: `));
      expect(error.message).toMatch(message);
      expect(error.details).toEqual({ line });
      // The error quotes at most a bounded part of a hostile word.
      expect(error.message.length).toBeLessThan(600);
    },
  );

  it.each(HOSTILE_DOCKERFILES.filter((c) => c.refused === null).map((c) => [c.name, c] as const))(
    "%s plans with BuildKit's answer",
    (_name, hostile) => {
      const plan = planDockerfile(hostile.text());
      expect(plan.environment).toEqual(hostile.environment);
    },
  );

  it("parser directives are read as BuildKit's regular expression reads them, blanks at either end trimmed", () => {
    expect(matchDirective("escape=`")).toEqual({ name: "escape", value: "`" });
    expect(matchDirective("escape \t= \t` \t")).toEqual({ name: "escape", value: "`" });
    expect(matchDirective("syntax = a b ")).toEqual({ name: "syntax", value: "a b" });
    // `(.+?)` must take a character: an all-blank value is its last blank.
    expect(matchDirective("escape= \t")).toEqual({ name: "escape", value: "\t" });
    expect(matchDirective("escape=")).toBeNull();
    expect(matchDirective("1escape=x")).toBeNull();
    expect(matchDirective("escape x")).toBeNull();
  });
});
