// Every outcome of the startup runner gives a schema-valid, bounded evidence file and the same document on
// stdout, with the runner's exit status following the script's. Real bash, real processes, real files.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { finishRunner, isAlive, makeSandbox, removeSandboxes, runRunner, startRunner } from "./sandbox.js";

afterEach(() => {
  removeSandboxes();
});

const waitFor = async (condition: () => boolean, ms = 20_000) => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe("runner outcomes", () => {
  it("succeeded: exit 0, readiness unknown said plainly when the handoff has no checks", async () => {
    const sandbox = makeSandbox({ script: 'echo "starting in $PWD"\necho "to stderr" >&2\n' });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(0);
    expect(run.record).toMatchObject({
      outcome: "succeeded",
      exitCode: 0,
      signal: null,
      runnerExitStatus: 0,
      repository: "acme/api",
      handoffVersionId: "ver_42",
      timeoutSeconds: 900,
      readiness: { status: "unknown", checks: [] },
    });
    expect(run.record.readiness.note).toMatch(/no readiness checks/);
    expect(run.record.output.head).toContain(`starting in ${sandbox.checkout}`);
    expect(run.record.output.head).toContain("to stderr");
    expect(run.record.output).toMatchObject({ lines: 2, truncated: false });
    expect(run.record.runtime.shell).toMatch(/bash/);
  });

  it("failed: the runner exits with the script's status and skips readiness", async () => {
    const sandbox = makeSandbox({
      script: "echo boom\nexit 3\n",
      checks: [{ kind: "tcp", host: "127.0.0.1", port: 9, deadlineSeconds: 1 }],
    });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(3);
    expect(run.record).toMatchObject({ outcome: "failed", exitCode: 3, runnerExitStatus: 3 });
    expect(run.record.readiness).toMatchObject({ status: "unknown", checks: [] });
    expect(run.record.readiness.note).toMatch(/not checked/);
  });

  it("never executes the script file itself: a non-executable script without a shebang runs under bash", async () => {
    const sandbox = makeSandbox({ script: '[[ -n "$BASH_VERSION" ]] && echo "bash $BASH_VERSION"\n' });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(0);
    expect(run.record.output.head).toMatch(/^bash \d/);
  });

  it("timed_out: the whole process group gets SIGTERM at the limit and the runner exits 124", async () => {
    const sandbox = makeSandbox({ script: "sleep 60 &\necho $! > bg.pid\nsleep 60\n", timeoutSeconds: 1 });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(124);
    expect(run.record).toMatchObject({
      outcome: "timed_out",
      runnerExitStatus: 124,
      exitCode: null,
      signal: "SIGTERM",
    });
    expect(run.record.durationMs).toBeLessThan(15_000);
    const backgroundPid = Number(readFileSync(join(sandbox.checkout, "bg.pid"), "utf8"));
    await waitFor(() => !isAlive(backgroundPid));
  });

  it("timed_out: a group that ignores SIGTERM gets SIGKILL after the grace period", async () => {
    const sandbox = makeSandbox({
      script: "trap '' TERM\necho $$ > main.pid\nwhile true; do sleep 0.1; done\n",
      timeoutSeconds: 1,
    });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(124);
    expect(run.record).toMatchObject({ outcome: "timed_out", signal: "SIGKILL" });
    expect(isAlive(Number(readFileSync(join(sandbox.checkout, "main.pid"), "utf8")))).toBe(false);
  });

  for (const [signal, status] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(`interrupted: ${signal} to the runner mid-run ends the script's group and still writes evidence`, async () => {
      const sandbox = makeSandbox({ script: "echo $$ > main.pid\necho started\nsleep 60\n" });
      const child = startRunner(sandbox);
      const pidFile = join(sandbox.checkout, "main.pid");
      await waitFor(() => {
        try {
          return readFileSync(pidFile, "utf8").trim().length > 0;
        } catch {
          return false;
        }
      });
      child.kill(signal);
      const run = await finishRunner(sandbox, child);
      expect(run.exitCode).toBe(status);
      expect(run.record).toMatchObject({ outcome: "interrupted", runnerExitStatus: status });
      expect(run.record.output.head).toContain("started");
      await waitFor(() => !isAlive(Number(readFileSync(pidFile, "utf8"))));
    });
  }

  it("interrupted: SIGTERM during readiness checks stops at once instead of waiting for their deadlines", async () => {
    const sandbox = makeSandbox({
      script: "echo started\n",
      checks: [{ kind: "command", command: "touch checking; exit 1", deadlineSeconds: 60 }],
    });
    const child = startRunner(sandbox);
    await waitFor(() => existsSync(join(sandbox.checkout, "checking")));
    child.kill("SIGTERM");
    const run = await finishRunner(sandbox, child);
    expect(run.exitCode).toBe(143);
    expect(run.record).toMatchObject({ outcome: "interrupted", exitCode: 0 });
    expect(run.record.durationMs).toBeLessThan(30_000);
  });

  it("runner_error: a missing handoff still gives evidence on stdout and in ~/.baton/evidence", async () => {
    const sandbox = makeSandbox({ script: "true\n" });
    const child = startRunner(sandbox, { args: ["--repo", "acme/other"] });
    const run = await finishRunner(
      sandbox,
      child,
      join(sandbox.home, ".baton", "evidence", "acme__other.json"),
    );
    expect(run.exitCode).toBe(125);
    expect(run.record).toMatchObject({
      outcome: "runner_error",
      repository: "acme/other",
      runnerExitStatus: 125,
    });
    expect(run.record.runnerError).toMatch(/baton env activate/);
    // A person at the terminal reads why on stderr, not only inside the JSON document.
    expect(run.stderr).toMatch(
      /^baton-runner: runner_error, exit status 125: cannot read the saved handoff \S+acme__other\.json; run `baton env activate <owner\/name>` first; evidence in \S+acme__other\.json$/m,
    );
  });

  it("runner_error: a checkout that does not exist is reported, not thrown", async () => {
    const sandbox = makeSandbox({ script: "true\n" });
    const handoff = JSON.parse(readFileSync(sandbox.handoffPath, "utf8"));
    handoff.checkoutPath = join(sandbox.root, "missing");
    handoff.managedStartup.startupScriptPath = join(sandbox.root, "missing", "start.sh");
    writeFileSync(sandbox.handoffPath, JSON.stringify(handoff));
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(125);
    expect(run.record.outcome).toBe("runner_error");
    expect(run.record.runnerError).toMatch(/ENOENT|spawn/);
  });

  it("runner_error: an uncaught exception inside the runner ends the script and writes sanitised evidence", async () => {
    const sandbox = makeSandbox({ script: "echo $$ > main.pid\nsleep 60\n", secretNames: ["APP_SECRET"] });
    // A preloaded module throws from a timer while the script runs: the runner's own uncaughtException path.
    const preload = join(sandbox.root, "throw-later.cjs");
    writeFileSync(
      preload,
      'setTimeout(() => { throw new Error("boom with " + process.env.APP_SECRET); }, 500);\n',
    );
    const secret = "canary-uncaught-0123456789";
    const child = startRunner(sandbox, { nodeArgs: ["--require", preload], env: { APP_SECRET: secret } });
    const run = await finishRunner(sandbox, child);
    expect(run.exitCode).toBe(125);
    expect(run.record.outcome).toBe("runner_error");
    expect(run.record.runnerError).toBe("boom with [REDACTED:APP_SECRET]");
    expect(run.stderr).toContain(
      "runner_error, exit status 125: boom with [REDACTED:APP_SECRET]; evidence in",
    );
    expect(run.stdout + run.stderr).not.toContain(secret);
    await waitFor(() => !isAlive(Number(readFileSync(join(sandbox.checkout, "main.pid"), "utf8"))));
  });

  it("--help prints the usage on stdout and exits 0, writing nothing", async () => {
    const sandbox = makeSandbox({ script: "touch ran.flag\n" });
    for (const args of [["--repo", "acme/api", "--help"], ["-h"], ["--bogus", "--help"]]) {
      const run = await startRunner(sandbox, { args });
      expect(run.exitCode).toBe(0);
      expect(String(run.stdout)).toMatch(
        /^usage: node baton-runner\.cjs \[--repo <owner\/name> \| --handoff <file>\]\n/,
      );
      expect(String(run.stdout)).toContain(
        "Exit status: the script's own; 1 readiness not reached; 124 time limit",
      );
      expect(String(run.stderr)).toBe("");
    }
    expect(existsSync(join(sandbox.home, ".baton", "evidence"))).toBe(false);
    expect(existsSync(join(sandbox.checkout, "ran.flag"))).toBe(false);
  });

  it.each([
    [["--bogus"], "unknown option --bogus; the options are --repo, --handoff and --help"],
    [["acme/api"], "unexpected argument acme/api; name the repository with --repo acme/api"],
    [["--repo"], "--repo needs a value: --repo <owner/name>"],
    [["--repo", "--handoff", "x.json"], "--repo needs a value: --repo <owner/name>"],
    [["--repo", "acme"], '--repo takes owner/name (e.g. --repo acme/api), not "acme"'],
    [["--handoff="], "--handoff needs a value: --handoff <file>"],
    [["--repo", "acme/api", "--repo", "acme/web"], "--repo is given twice"],
  ])("bad arguments %j: exit 125, what to fix on stderr, no evidence, nothing run", async (args, message) => {
    const sandbox = makeSandbox({ script: "touch ran.flag\n" });
    const run = await startRunner(sandbox, { args });
    expect(run.exitCode).toBe(125);
    expect(String(run.stderr)).toBe(
      `baton-runner: ${message}\nusage: node baton-runner.cjs [--repo <owner/name> | --handoff <file>]\n`,
    );
    expect(String(run.stdout)).toBe("");
    expect(existsSync(join(sandbox.home, ".baton", "evidence"))).toBe(false);
    expect(existsSync(join(sandbox.checkout, "ran.flag"))).toBe(false);
  });
});
