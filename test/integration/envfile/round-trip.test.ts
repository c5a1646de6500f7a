// Render, then source in real bash and dash: every value must come back exactly (quoting has an inverse).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type Overlay,
  renderDockerfileEnvironmentFile,
  renderEnvironmentFile,
} from "../../../src/envfile/index.js";
import { SHELLS, sourceAndReadEnv } from "../../helpers/shell.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "baton-roundtrip-"));
  mkdirSync(join(home, ".baton"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function overlayOf(values: readonly string[]): Overlay {
  return {
    revision: 7,
    repositories: [
      {
        repository: "acme/api",
        repositoryId: "r1",
        variables: values.map((value, i) => ({
          name: `V${i}`,
          assigned: `V${i}`,
          value,
          source: i % 2 === 0 ? ("sandbox.env" as const) : ("secret" as const),
        })),
      },
    ],
  };
}

function roundTrip(values: readonly string[]): void {
  const file = join(home, ".baton", "environment.sh");
  writeFileSync(file, renderEnvironmentFile(overlayOf(values)));
  for (const shell of SHELLS) {
    const env = sourceAndReadEnv(shell, file, home);
    values.forEach((value, i) => {
      expect({ shell, name: `V${i}`, value: env.get(`V${i}`) }).toEqual({ shell, name: `V${i}`, value });
    });
  }
}

const latin1 = Array.from({ length: 255 }, (_, i) => String.fromCharCode(i + 1));
const tricky = [
  "'",
  '"',
  "$",
  "`",
  "\\",
  "\n",
  "\r",
  "\t",
  " ",
  "!",
  "*",
  "?",
  "~",
  "#",
  ";",
  "&",
  "|",
  "(",
  "{",
];
const valueArb = fc
  .oneof(
    fc.string({ unit: fc.constantFrom(...latin1), maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(...tricky, "a", "é", "😀", "\u2028"), maxLength: 40 }),
    fc.string({ unit: "binary", maxLength: 20 }),
    fc.constant(""),
  )
  .filter((value) => !value.includes("\0"));

describe("environment.sh quoting round-trips in real bash and dash", () => {
  it("every byte 0x01-0xFF, one variable each and all in one value", () => {
    roundTrip([...latin1, latin1.join(""), [...latin1].reverse().join("")]);
  });

  it("quotes, $, backticks, backslashes, newlines, unicode and the empty string", () => {
    roundTrip([
      "",
      "'",
      "''",
      "it's",
      '"$HOME"',
      "`id`",
      "$(id)",
      "\\",
      "\\'",
      "a\nb\n",
      "\n",
      "😀 é ü 中",
      "'\\''",
    ]);
  });

  it("property: 1,250 generated values (bytes 0x01-0xFF, multi-line, unicode) come back byte-identical", () => {
    let total = 0;
    fc.assert(
      fc.property(fc.array(valueArb, { minLength: 25, maxLength: 25 }), (values) => {
        total += values.length;
        roundTrip(values);
      }),
      { numRuns: 50 },
    );
    expect(total).toBeGreaterThanOrEqual(1000);
  });

  it("sandbox.env and secrets keep precedence over Dockerfile ENV, which is still loaded first", () => {
    const docker = renderDockerfileEnvironmentFile({
      entries: [
        { assigned: "V0", value: "from dockerfile", repository: "acme/api" },
        { assigned: "ONLY_DOCKER", value: "it's docker\n", repository: "acme/api" },
      ],
    });
    writeFileSync(join(home, ".baton", "dockerfile-environment.sh"), docker);
    const file = join(home, ".baton", "environment.sh");
    writeFileSync(file, renderEnvironmentFile(overlayOf(["from sandbox.env", "secret placeholder"])));
    for (const shell of SHELLS) {
      const env = sourceAndReadEnv(shell, file, home);
      expect([env.get("V0"), env.get("V1"), env.get("ONLY_DOCKER")]).toEqual([
        "from sandbox.env",
        "secret placeholder",
        "it's docker\n",
      ]);
    }
  });
});
