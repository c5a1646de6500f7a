// Malformed Dockerfiles end in an InputError that names the line, never a crash or a hang.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planDockerfile } from "../../../src/dockerfile/plan.js";
import { InputError } from "../../../src/errors.js";

function failure(text: string): InputError {
  try {
    planDockerfile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error("expected the Dockerfile to be refused");
}

/** Deterministic junk (xorshift), so a failure reproduces. */
function junk(bytes: number, seed: number, newlineEvery: number | null): string {
  const out = Buffer.alloc(bytes);
  let x = seed;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const byte = x & 0xff;
    out[i] = newlineEvery !== null && i % newlineEvery === newlineEvery - 1 ? 10 : byte === 10 ? 32 : byte;
  }
  return out.toString("utf8");
}

describe("malformed input", () => {
  it.each([
    ["an unterminated quote", 'FROM x\nENV A="abc\n', 2, /unexpected end of statement/],
    ["an unterminated heredoc", "FROM x\nRUN <<EOF\necho hi\n", 2, /unterminated heredoc/],
    ["an invalid ${} form", "FROM x\nRUN true\nENV A=${}\n", 3, /bad substitution/],
    ["an unsupported modifier", "FROM x\nWORKDIR ${A:=b}\n", 2, /unsupported modifier/],
    ["a non-string exec array", 'FROM x\nRUN ["echo", 1]\n', 2, /strings only/],
    ["an unknown instruction", "FROM x\nFROBNICATE now\n", 2, /unknown instruction: FROBNICATE/],
    ["ENV without a value", "FROM x\nENV PATH\n", 2, /ENV must have two arguments/],
    ["SHELL not in JSON form", "FROM x\nSHELL /bin/bash -c\n", 2, /JSON form/],
    ["an empty file", "", 1, /no instructions/],
  ])("%s is refused with an error naming its line", (_name, text, line, message) => {
    const error = failure(text);
    expect(error.message).toMatch(new RegExp(`^Dockerfile line ${line}: `));
    expect(error.message).toMatch(message);
    expect(error.details).toEqual({ line });
  });

  it("10 MB of junk without newlines is refused at line 1 (longer than BuildKit's 64 KiB line limit)", () => {
    const error = failure(junk(10 * 1024 * 1024, 0x9e3779b9, null));
    expect(error.message).toMatch(/^Dockerfile line 1: the line is longer than 65535 bytes/);
  });

  it("10 MB of junk in short lines is refused with an error naming a line", () => {
    const error = failure(junk(10 * 1024 * 1024, 0x1234567, 97));
    expect(error.message).toMatch(/^Dockerfile line \d+: /);
  });

  it("any text either plans or is refused with an InputError naming a line (property)", () => {
    const dockerfileish = fc.array(
      fc.oneof(
        fc.constantFrom(
          "FROM x",
          "RUN <<EOF",
          "EOF",
          "ENV A=$B",
          "ARG X=1",
          "# escape=`",
          "\\",
          "`",
          '"',
          "${",
          "}",
        ),
        fc.string({ maxLength: 40 }),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(dockerfileish, (lines) => {
        try {
          planDockerfile(lines.join("\n"));
        } catch (error) {
          return error instanceof InputError && /^Dockerfile line \d+: /.test(error.message);
        }
        return true;
      }),
      { numRuns: 500 },
    );
  });
});
