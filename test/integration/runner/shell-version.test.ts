// runtime.shell comes from the version constant inside the bash binary, not from a second bash process; it must
// say what `bash --version` says.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findBash, readBashVersion } from "../../../runner/src/shell-version.js";
import { makeSandbox, removeSandboxes, runRunner } from "./sandbox.js";

const dir = mkdtempSync(join(tmpdir(), "baton-shell-version-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeSandboxes();
});

describe("bash version without running bash", () => {
  it("the bash on PATH reads as `bash --version`'s first line, without the machine type", () => {
    const bash = findBash(process.env.PATH);
    expect(bash).not.toBeNull();
    const first = execFileSync(bash!, ["--version"], { encoding: "utf8" }).split("\n")[0]!;
    expect(first.startsWith(`${readBashVersion(bash!)} (`)).toBe(true);
    expect(readBashVersion(bash!)).toMatch(/^GNU bash, version \d+\.\d+\.\d+\(\d+\)-[a-z]+$/);
  });

  it("finds the constant wherever it falls, also across the 256 KiB pieces it reads", () => {
    const marker = "@(#)Bash version 9.1.42(3) beta GNU";
    for (const at of [0, 5, 256 * 1024 - 10, 256 * 1024 - 20, 256 * 1024, 700_000]) {
      const bytes = Buffer.alloc(800_000, 0x41);
      bytes.write(marker, at, "latin1");
      const file = join(dir, `bash-${at}`);
      writeFileSync(file, bytes);
      expect(readBashVersion(file)).toBe("GNU bash, version 9.1.42(3)-beta");
    }
  });

  it("answers null for a file without the constant, a missing file, a folder and a FIFO (without waiting)", () => {
    const plain = join(dir, "not-bash");
    writeFileSync(plain, "#!/bin/sh\necho hi\n");
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    for (const file of [plain, join(dir, "missing"), dir, fifo]) expect(readBashVersion(file)).toBeNull();
    expect(findBash("relative/dir:")).toBeNull();
  });

  it("the runner starts one bash, the script's: a bash on PATH that logs each start is started once", async () => {
    const real = findBash(process.env.PATH)!;
    const bin = join(dir, "bin");
    const log = join(dir, "bash-starts.log");
    mkdirSync(bin);
    // A wrapper is not a bash binary, so runtime.shell is null here; the count is what this test is about.
    writeFileSync(join(bin, "bash"), `#!/bin/sh\necho "$*" >> ${log}\nexec ${real} "$@"\n`, { mode: 0o755 });
    const sandbox = makeSandbox({ script: "echo started\n" });
    const run = await runRunner(sandbox, { env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(run.exitCode).toBe(0);
    expect(readFileSync(log, "utf8")).toBe(`${join(sandbox.checkout, "start.sh")}\n`);
    expect(run.record.runtime.shell).toBeNull();
  });
});
