// `.ci/run` on a fresh machine gets every program Baton and its tests run through scripts/setup-machine.sh: each
// command the code starts by name (execa, spawn, execFile) is either in a package every Debian system has
// (Essential: coreutils, tar, bash, util-linux, libc-bin…) or installed by a `need <command> <package>` line.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

/** Programs of Debian's Essential packages (present on every Debian system, never installed by us). */
const ESSENTIAL = new Set([
  "bash",
  "sh",
  "cp",
  "touch",
  "chown",
  "chmod",
  "mkdir",
  "mkfifo",
  "tar",
  "base64",
  "true",
  "getconf",
  "mknod",
  "du", // coreutils
  "find", // findutils, Essential too
]);

function sources(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mjs)$/.test(entry.name))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"));
}

describe("scripts/setup-machine.sh", () => {
  const script = readFileSync(join(PROJECT_ROOT, "scripts", "setup-machine.sh"), "utf8");
  const needed = new Set([...script.matchAll(/^need (\S+) \S+$/gm)].map((m) => m[1]!));
  const started = new Set(
    ["src", "scripts", "test", "bench"]
      .flatMap(sources)
      .flatMap((text) => [
        ...text.matchAll(/(?<![.\w])(?:execa|spawn|execFileSync|execFile|run)\("([a-z0-9_-]+)"/g),
      ])
      .map((m) => m[1]!),
  );

  it("finds the programs the code starts (the scan itself works)", () => {
    for (const program of ["docker", "git", "ip", "iptables"]) expect(started).toContain(program);
  });

  it.each([...started].sort())("installs %s, or it comes with every Debian system", (program) => {
    expect(ESSENTIAL.has(program) || needed.has(program)).toBe(true);
  });
});
