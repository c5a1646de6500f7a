// The atomic writer on real files: permissions, refusals, and what survives a writer that dies mid-write.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveSandboxPaths } from "../../../src/config/sandbox.js";
import { ensureBatonDir, writeFileAtomic } from "../../../src/envfile/index.js";
import { UnsafePathError } from "../../../src/errors.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "baton-atomic-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A uid that is not ours: root can chown to it; anyone else finds root-owned folders. */
const otherUid = process.geteuid?.() === 0 ? 65534 : 0;

function makeForeignDir(path: string): void {
  mkdirSync(path);
  if (process.geteuid?.() === 0) chownSync(path, otherUid, otherUid);
}

describe("writeFileAtomic", () => {
  it("writes the content with mode 0600 by default and leaves no temporary file", async () => {
    const file = join(root, "environment.sh");
    await writeFileAtomic(file, "export A='1'\n");
    expect(readFileSync(file, "utf8")).toBe("export A='1'\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(root)).toEqual(["environment.sh"]);
  });

  it("replaces an existing file and applies the requested mode even if the old one was wider", async () => {
    const file = join(root, "environment.sh");
    writeFileSync(file, "old", { mode: 0o644 });
    await writeFileAtomic(file, "new", { mode: 0o600 });
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses to write through a symbolic link, and the link's target stays untouched", async () => {
    const target = join(root, "target");
    writeFileSync(target, "precious");
    symlinkSync(target, join(root, "environment.sh"));
    await expect(writeFileAtomic(join(root, "environment.sh"), "evil")).rejects.toBeInstanceOf(
      UnsafePathError,
    );
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(lstatSync(join(root, "environment.sh")).isSymbolicLink()).toBe(true);
  });

  it("refuses a folder that is a symbolic link", async () => {
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "link"));
    await expect(writeFileAtomic(join(root, "link", "f"), "x")).rejects.toBeInstanceOf(UnsafePathError);
    expect(readdirSync(join(root, "real"))).toEqual([]);
  });

  it("refuses a folder another user owns", async () => {
    makeForeignDir(join(root, "theirs"));
    await expect(writeFileAtomic(join(root, "theirs", "f"), "x")).rejects.toBeInstanceOf(UnsafePathError);
    expect(readdirSync(join(root, "theirs"))).toEqual([]);
  });

  it("refuses a target that is a folder", async () => {
    mkdirSync(join(root, "environment.sh"));
    await expect(writeFileAtomic(join(root, "environment.sh"), "x")).rejects.toBeInstanceOf(UnsafePathError);
  });

  it("a writer killed part-way through (file size limit) leaves the previous file intact", () => {
    const file = join(root, "environment.sh");
    writeFileSync(file, "previous revision\n", { mode: 0o600 });
    const module = join(PROJECT_ROOT, "dist", "src", "envfile", "index.js");
    const script = `import(${JSON.stringify(module)}).then((m) => m.writeFileAtomic(${JSON.stringify(file)}, "x".repeat(1 << 20)))`;
    // ulimit -f 64 (KiB): the kernel stops the write with SIGXFSZ long before 1 MiB is on disk.
    const run = spawnSync("bash", ["-c", `ulimit -f 64; exec "$0" -e "$1"`, process.execPath, script]);
    expect(run.signal ?? run.status).not.toBe(0);
    expect(readFileSync(file, "utf8")).toBe("previous revision\n");
  });

  it("a later write removes temporary files left by dead writers", async () => {
    const file = join(root, "environment.sh");
    // Above pid_max no process can exist, so this temp file's writer is certainly gone.
    const dead = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8")) + 1;
    const stale = join(root, `.environment.sh.${dead}-0123456789ab.tmp`);
    writeFileSync(stale, "half");
    await writeFileAtomic(file, "ok");
    expect(existsSync(stale)).toBe(false);
  });
});

describe("ensureBatonDir", () => {
  it("creates ~/.baton with mode 0700", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    await ensureBatonDir(paths);
    expect(statSync(paths.batonDir).mode & 0o777).toBe(0o700);
  });

  it("tightens an existing ~/.baton to 0700", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    mkdirSync(paths.batonDir);
    chmodSync(paths.batonDir, 0o755);
    await ensureBatonDir(paths);
    expect(statSync(paths.batonDir).mode & 0o777).toBe(0o700);
  });

  it("refuses a ~/.baton that is a symbolic link", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    mkdirSync(join(root, "elsewhere"));
    symlinkSync(join(root, "elsewhere"), paths.batonDir);
    await expect(ensureBatonDir(paths)).rejects.toBeInstanceOf(UnsafePathError);
  });

  it("refuses a ~/.baton owned by another user", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    makeForeignDir(paths.batonDir);
    await expect(ensureBatonDir(paths)).rejects.toBeInstanceOf(UnsafePathError);
  });
});
