// The built CLI under the machine's own Node, which is older than the CLI needs (these machines' system Node is
// 20; the project's Node 22 comes from the `node` devDependency): one line naming what to fix and exit 1, not a
// SyntaxError from a module the old Node lacks. `/usr/bin/node` is Debian's; a machine without an older Node
// there fails this test with the reason below rather than passing unseen.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { BATON_BIN } from "../../helpers/cli.js";

const SYSTEM_NODE = "/usr/bin/node";

describe("baton on a Node older than 22", () => {
  it("says which Node it needs and exits 1, for --version and any command", () => {
    expect(existsSync(SYSTEM_NODE), `${SYSTEM_NODE} (the machine's older Node) is missing`).toBe(true);
    const version = execFileSync(SYSTEM_NODE, ["--version"], { encoding: "utf8" }).trim();
    expect(
      Number(version.slice(1).split(".")[0]),
      `${SYSTEM_NODE} is ${version}, not older than 22`,
    ).toBeLessThan(22);
    for (const args of [["--version"], ["env", "test", "--help"]]) {
      const run = spawnSync(SYSTEM_NODE, [BATON_BIN, ...args], { encoding: "utf8" });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(
        `baton: needs Node 22 or newer, and this is Node ${version}; run it with Node 22 (in this repository, npx baton or npm run puts the project's Node 22 first)\n`,
      );
    }
  });
});
