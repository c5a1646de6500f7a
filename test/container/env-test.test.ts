// `baton env test` end to end, on both drivers: the fixture repository passes (exit 0, every step, the evidence
// and the disclosure in --json); a failing startup script exits 1 naming the step; a bad .batonrc.json stops at
// lint naming the key, before any box exists.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBaton } from "../helpers/cli.js";
import { DRIVERS } from "../helpers/sandbox-drivers.js";
import { FIXTURES } from "../helpers/serve.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-envtest-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function checkout(changes: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmp, "acme-api-"));
  cpSync(join(FIXTURES, "repos", "acme-api"), dir, { recursive: true });
  for (const [path, text] of Object.entries(changes)) writeFileSync(join(dir, path), text, { mode: 0o755 });
  return dir;
}

describe.each(DRIVERS)("baton env test on the %s driver", (driver) => {
  it("passes the fixture repository: every step, the evidence and the disclosure", async () => {
    const run = await runBaton([
      "env",
      "test",
      checkout(),
      "--repository",
      "acme/api",
      "--driver",
      driver,
      "--json",
    ]);
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.steps.map((s: { name: string; ok: boolean }) => `${s.name}:${s.ok}`)).toEqual([
      "lint:true",
      "provision:true",
      "activate:true",
      "dockerfile:true",
      "startup:true",
      "disclose:true",
    ]);
    expect(result.evidence).toMatchObject({ outcome: "succeeded", repository: "acme/api" });
    expect(result.disclosure).toContain("Environment disclosure: acme/api");
    expect(run.stderr).toContain("baton env test: startup…"); // progress goes to stderr
  });

  it("exits 1 when the startup script fails, naming the step", async () => {
    const failing = checkout({ "scripts/start.sh": "#!/bin/sh\necho 'cannot start' >&2\nexit 3\n" });
    const run = await runBaton(["env", "test", failing, "--repository", "acme/api", "--driver", driver]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^ {2}startup +FAILED +\d+ ms {2}outcome failed$/m);
    expect(run.stdout).toContain("baton env test: failed at startup");
    expect(run.stdout).toMatch(/evidence: outcome failed, exit 3/);
  });
});

it("stops at lint on a bad .batonrc.json, naming each key, before making a box", async () => {
  const bad = checkout({
    ".batonrc.json": JSON.stringify({ sandbox: { env: { "9LIVES": "x" } }, post_build: [] }),
  });
  const run = await runBaton(["env", "test", bad, "--repository", "acme/api", "--json"]);
  expect(run.exitCode).toBe(1);
  const result = JSON.parse(run.stdout);
  expect(result.steps).toEqual([expect.objectContaining({ name: "lint", ok: false })]);
  expect(result.batonrcProblems.map((p: { path: string }) => p.path).sort()).toEqual([
    "post_build",
    "sandbox.env.9LIVES",
  ]);
});

// A hostile checkout: a FIFO would hang a plain read, and a link would read another file (as root on a sandbox
// host) and quote it in the JSON error.
it.each([
  ["a FIFO", (path: string) => execFileSync("mkfifo", [path])],
  ["a link to another file", (path: string) => symlinkSync("/etc/shadow", path)],
])("refuses a .batonrc.json that is %s, naming the file, before making a box", async (_what, make) => {
  const dir = checkout();
  make(join(dir, ".batonrc.json"));
  const run = await runBaton(["env", "test", dir, "--repository", "acme/api", "--json"]);
  expect(run.exitCode).toBe(1);
  expect(JSON.parse(run.stdout).error.message).toBe(
    `.batonrc.json in ${dir} must be a regular file in the checkout, not a symbolic link, FIFO or device; replace it with the JSON file itself`,
  );
  expect(run.stdout + run.stderr).not.toContain("root:");
});
