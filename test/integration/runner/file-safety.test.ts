// The startup runner against a hostile ~/.baton and an edited saved handoff: it applies the handoff's path rules
// again, refuses symbolic links and FIFOs, and runs nothing when it could not keep its evidence safe.
// The real bundled runner under Node 20; real links, real FIFOs, real bash.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EvidenceRecordSchema } from "../../../src/evidence/index.js";
import { finishRunner, makeSandbox, removeSandboxes, type Sandbox, startRunner } from "./sandbox.js";

afterEach(() => {
  removeSandboxes();
});

/** A FIFO in the way used to block the runner forever; this bound turns such a hang into a failure. */
const HANG_GUARD_MS = 20_000;

/** A startup script that leaves a marker, so a test can tell whether it ran. */
function markedSandbox(): { sandbox: Sandbox; marker: string } {
  const sandbox = makeSandbox({ script: "true\n" });
  const marker = join(sandbox.root, "script-ran");
  writeFileSync(join(sandbox.checkout, "start.sh"), `echo ran > ${marker}\n`);
  return { sandbox, marker };
}

type EditableHandoff = { repository: string; managedStartup: Record<string, unknown> };

function editHandoff(sandbox: Sandbox, edit: (handoff: EditableHandoff) => void): void {
  const handoff = JSON.parse(readFileSync(sandbox.handoffPath, "utf8")) as EditableHandoff;
  edit(handoff);
  writeFileSync(sandbox.handoffPath, JSON.stringify(handoff));
}

async function runAndParse(sandbox: Sandbox, args?: string[]) {
  const result = await startRunner(sandbox, { timeoutMs: HANG_GUARD_MS, ...(args ? { args } : {}) });
  const stdout = String(result.stdout);
  return {
    exitCode: result.exitCode,
    stderr: String(result.stderr),
    record: EvidenceRecordSchema.parse(JSON.parse(stdout)),
  };
}

describe("evidence is never written through a symbolic link", () => {
  it.each([
    ["out of ~/.baton", (sandbox: Sandbox) => join(sandbox.root, "elsewhere")],
    ["to another folder inside ~/.baton", (sandbox: Sandbox) => join(sandbox.home, ".baton", "elsewhere")],
  ])(
    "~/.baton/evidence as a link %s: runner_error (125) before the script runs; nothing written there",
    async (_, target) => {
      const { sandbox, marker } = markedSandbox();
      const elsewhere = target(sandbox);
      mkdirSync(elsewhere);
      symlinkSync(elsewhere, join(sandbox.home, ".baton", "evidence"));
      const run = await runAndParse(sandbox);
      expect(run.exitCode).toBe(125);
      expect(run.record.outcome).toBe("runner_error");
      expect(run.record.runnerError).toMatch(/symbolic link/);
      // The document went to stdout only: stderr says so and why, never "evidence in" a file it did not write.
      expect(run.stderr).toMatch(
        /runner_error, exit status 125: .*symbolic link.*; evidence on stdout only: could not write /,
      );
      expect(run.stderr).not.toContain("evidence in");
      expect(existsSync(marker)).toBe(false);
      expect(readdirSync(elsewhere)).toEqual([]);
    },
  );
});

describe("the saved handoff's path rules apply again when the runner reads it", () => {
  it("an edited startupScriptPath outside the checkout is refused and that script never runs", async () => {
    const sandbox = makeSandbox({ script: "true\n" });
    const marker = join(sandbox.root, "outside-ran");
    const outside = join(sandbox.root, "outside.sh");
    writeFileSync(outside, `echo ran > ${marker}\n`);
    editHandoff(sandbox, (handoff) => {
      handoff.managedStartup.startupScriptPath = outside;
    });
    const run = await finishRunner(sandbox, startRunner(sandbox, { timeoutMs: HANG_GUARD_MS }));
    expect(run.exitCode).toBe(125);
    expect(run.record.runnerError).toContain(
      `startupScriptPath ${JSON.stringify(outside)} leaves the checkout`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("a startup script in the checkout that is a link out of it is refused", async () => {
    const sandbox = makeSandbox({ script: "true\n" });
    const marker = join(sandbox.root, "outside-ran");
    const outside = join(sandbox.root, "outside.sh");
    writeFileSync(outside, `echo ran > ${marker}\n`);
    rmSync(join(sandbox.checkout, "start.sh"));
    symlinkSync(outside, join(sandbox.checkout, "start.sh"));
    const run = await finishRunner(sandbox, startRunner(sandbox, { timeoutMs: HANG_GUARD_MS }));
    expect(run.exitCode).toBe(125);
    expect(run.record.runnerError).toContain(
      "startupScriptPath goes through a symbolic link out of the checkout",
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("an edited evidencePath outside ~/.baton is refused, and evidence goes to ~/.baton/evidence", async () => {
    const { sandbox, marker } = markedSandbox();
    const outside = join(sandbox.root, "stolen.json");
    editHandoff(sandbox, (handoff) => {
      handoff.managedStartup.evidencePath = outside;
    });
    const run = await finishRunner(sandbox, startRunner(sandbox, { timeoutMs: HANG_GUARD_MS }));
    expect(run.exitCode).toBe(125);
    expect(run.record.runnerError).toContain("evidencePath");
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it("a handoff for another repository than --repo is refused", async () => {
    const { sandbox, marker } = markedSandbox();
    editHandoff(sandbox, (handoff) => {
      handoff.repository = "acme/web";
    });
    const run = await finishRunner(sandbox, startRunner(sandbox, { timeoutMs: HANG_GUARD_MS }));
    expect(run.exitCode).toBe(125);
    expect(run.record.runnerError).toContain("the saved handoff is for acme/web, not acme/api");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("FIFOs where the runner reads", () => {
  it.each([
    ["the saved handoff", (sandbox: Sandbox) => sandbox.handoffPath],
    ["environment.sh", (sandbox: Sandbox) => join(sandbox.home, ".baton", "environment.sh")],
  ])("%s as a FIFO: runner_error at once instead of waiting for a writer", async (_, path) => {
    const { sandbox, marker } = markedSandbox();
    const fifo = path(sandbox);
    rmSync(fifo);
    execFileSync("mkfifo", [fifo]);
    const run = await finishRunner(sandbox, startRunner(sandbox, { timeoutMs: HANG_GUARD_MS }));
    expect(run.exitCode).toBe(125);
    expect(run.record.runnerError).toContain(`${fifo} is not a regular file (a FIFO)`);
    expect(existsSync(marker)).toBe(false);
  });
});
