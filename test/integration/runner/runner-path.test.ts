// `baton runner path` prints where the packaged runner bundle is, for installing it at a handoff's runPath.
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { RUNNER } from "./sandbox.js";

describe("baton runner path", () => {
  it("prints the absolute path of the dependency-free bundle", async () => {
    const run = await runBaton(["runner", "path"]);
    expect(run.exitCode).toBe(0);
    const path = run.stdout.trim();
    expect(isAbsolute(path)).toBe(true);
    expect(path).toBe(RUNNER);
    expect(existsSync(path)).toBe(true);
    // One file, no require() of anything but Node's own modules.
    const requires = [...readFileSync(path, "utf8").matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]);
    expect(requires.length).toBeGreaterThan(0);
    expect(requires.filter((name) => !name?.startsWith("node:"))).toEqual([]);
  });

  it("prints {path} with --json", async () => {
    const run = await runBaton(["runner", "path", "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ path: RUNNER });
  });
});
