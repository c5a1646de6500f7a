import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT, runBaton } from "../../helpers/cli.js";

const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version as string;

describe("baton CLI core", () => {
  it.each([["-v"], ["--version"]])("%s prints the package version and exits 0", async (flag) => {
    const run = await runBaton([flag]);
    expect(run).toMatchObject({ exitCode: 0, stdout: `${version}\n`, stderr: "" });
  });

  it("--help lists the command groups and exits 0", async () => {
    const run = await runBaton(["--help"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("Usage: baton");
    expect(run.stdout).toContain("env");
  });

  it("an unknown flag is an error that names the flag (exit 1)", async () => {
    const run = await runBaton(["--frobnicate"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("--frobnicate");
  });

  it("an unknown command is an error (exit 1)", async () => {
    const run = await runBaton(["frobnicate"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("frobnicate");
  });
});
