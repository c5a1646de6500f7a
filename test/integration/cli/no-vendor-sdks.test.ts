// The vendors' SDKs (Octokit for the GitHub App, @linear/sdk for Linear; issue 35 16b) are the server's business:
// the client's bundles (bin.js and every dist/src/bundle/*.cjs a command loads) must neither carry them nor
// require() them, and `baton --version` must start without loading a module of theirs. Reads dist/ (built by
// scripts/build.mjs, as every test that runs `baton` does); env-test-service.cjs is the throwaway service of
// `baton env test`, not a client path, and is left out.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BATON_BIN, PROJECT_ROOT } from "../../helpers/cli.js";

const VENDOR = /@octokit\/|@linear\//;
const bundleDir = join(PROJECT_ROOT, "dist", "src", "bundle");

describe("the client loads none of the vendors' SDKs", () => {
  it("no client bundle carries or requires @octokit or @linear", () => {
    const files = readdirSync(bundleDir).filter((f) => f.endsWith(".cjs") && f !== "env-test-service.cjs");
    expect(files.length).toBeGreaterThan(5);
    const carrying = [BATON_BIN, ...files.map((f) => join(bundleDir, f))].filter((path) =>
      VENDOR.test(readFileSync(path, "utf8")),
    );
    expect(carrying).toEqual([]);
  });

  it("`baton --version` and `baton --help` load no module of theirs", () => {
    for (const args of [["--version"], ["--help"]]) {
      // The CommonJS loader's cache lists every file required by the time the process exits.
      const { stderr: loaded } = spawnSync(
        process.execPath,
        [
          "-e",
          `process.argv = [process.argv[0], ${JSON.stringify(BATON_BIN)}, ...${JSON.stringify(args)}];
           process.on("exit", () => process.stderr.write(JSON.stringify(Object.keys(require.cache))));
           import(${JSON.stringify(BATON_BIN)});`,
        ],
        { encoding: "utf8" },
      );
      const modules = JSON.parse(loaded) as string[];
      // --help loads the command tree (main.cjs): the list is real, not empty because nothing was recorded.
      if (args[0] === "--help") expect(modules.some((m) => m.endsWith("main.cjs"))).toBe(true);
      expect(modules.filter((m) => VENDOR.test(m))).toEqual([]);
    }
  });
});
