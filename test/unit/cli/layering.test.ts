// Only src/cli prints and maps exit codes (issue 10, F.25): every other module returns values or throws
// BatonErrors. Read from the source, so a module that starts printing or importing the CLI fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const SRC = join(PROJECT_ROOT, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const outsideCli = sourceFiles(SRC)
  .filter((file) => !relative(SRC, file).startsWith("cli/"))
  .map((file) => ({ name: relative(SRC, file), text: readFileSync(file, "utf8") }));

describe("only src/cli prints and maps exit codes", () => {
  it("finds the modules it checks", () => {
    expect(outsideCli.length).toBeGreaterThan(50);
  });

  it.each([
    ["imports a src/cli module", /from\s+"(\.\.\/)+cli\//],
    ["imports commander", /from\s+"commander"/],
    ["writes to stdout or stderr", /process\.(stdout|stderr)\b/],
    ["prints with console", /\bconsole\.(log|info|warn|error)\(/],
    ["exits the process", /\bprocess\.exit\(/],
  ])("no module outside src/cli %s", (_what, pattern) => {
    expect(outsideCli.filter((file) => pattern.test(file.text)).map((file) => file.name)).toEqual([]);
  });
});
