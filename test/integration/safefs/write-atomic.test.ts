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
import { UnsafePathError } from "../../../src/errors.js";
import {
  assertWritableUnder,
  createFileExclusiveSync,
  ensureRoot,
  writeFileAtomic,
} from "../../../src/safefs/index.js";
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
    await writeFileAtomic(root, file, "export A='1'\n");
    expect(readFileSync(file, "utf8")).toBe("export A='1'\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(root)).toEqual(["environment.sh"]);
  });

  it("replaces an existing file and applies the requested mode even if the old one was wider", async () => {
    const file = join(root, "environment.sh");
    writeFileSync(file, "old", { mode: 0o644 });
    await writeFileAtomic(root, file, "new", { mode: 0o600 });
    expect(readFileSync(file, "utf8")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses to write through a symbolic link, and the link's target stays untouched", async () => {
    const target = join(root, "target");
    writeFileSync(target, "precious");
    symlinkSync(target, join(root, "environment.sh"));
    await expect(writeFileAtomic(root, join(root, "environment.sh"), "evil")).rejects.toBeInstanceOf(
      UnsafePathError,
    );
    expect(readFileSync(target, "utf8")).toBe("precious");
    expect(lstatSync(join(root, "environment.sh")).isSymbolicLink()).toBe(true);
  });

  it("refuses a folder that is a symbolic link", async () => {
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "link"));
    await expect(writeFileAtomic(root, join(root, "link", "f"), "x")).rejects.toBeInstanceOf(UnsafePathError);
    expect(readdirSync(join(root, "real"))).toEqual([]);
  });

  it("refuses a folder another user owns", async () => {
    makeForeignDir(join(root, "theirs"));
    await expect(writeFileAtomic(root, join(root, "theirs", "f"), "x")).rejects.toBeInstanceOf(
      UnsafePathError,
    );
    expect(readdirSync(join(root, "theirs"))).toEqual([]);
  });

  it("refuses a target that is a folder", async () => {
    mkdirSync(join(root, "environment.sh"));
    await expect(writeFileAtomic(root, join(root, "environment.sh"), "x")).rejects.toBeInstanceOf(
      UnsafePathError,
    );
  });

  it("a writer killed part-way through (file size limit) leaves the previous file intact", () => {
    const file = join(root, "environment.sh");
    writeFileSync(file, "previous revision\n", { mode: 0o600 });
    const module = join(PROJECT_ROOT, "dist", "src", "safefs", "index.js");
    const script = `import(${JSON.stringify(module)}).then((m) => m.writeFileAtomic(${JSON.stringify(root)}, ${JSON.stringify(file)}, "x".repeat(1 << 20)))`;
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
    await writeFileAtomic(root, file, "ok");
    expect(existsSync(stale)).toBe(false);
  });
});

describe("every folder between the root and the file", () => {
  it("refuses a symbolic link part-way down (state -> elsewhere) and writes nothing through it", async () => {
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    const baton = join(root, ".baton");
    mkdirSync(baton, { mode: 0o700 });
    symlinkSync(elsewhere, join(baton, "state"));
    const file = join(baton, "state", "dockerfile", "acme__api.json");
    await expect(writeFileAtomic(baton, file, "{}")).rejects.toThrow(
      `${join(baton, "state")} is a symbolic link`,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("makes missing folders 0700 below the root", async () => {
    const baton = join(root, ".baton");
    const file = join(baton, "state", "dockerfile", "acme__api.json");
    await writeFileAtomic(baton, file, "{}");
    expect(readFileSync(file, "utf8")).toBe("{}");
    for (const dir of [baton, join(baton, "state"), join(baton, "state", "dockerfile")]) {
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
  });

  it("refuses a file outside the root", async () => {
    await expect(writeFileAtomic(join(root, ".baton"), join(root, "other", "f"), "x")).rejects.toThrow(
      "is outside",
    );
    expect(existsSync(join(root, "other"))).toBe(false);
  });

  it("assertWritableUnder checks every existing part and creates nothing", () => {
    const baton = join(root, ".baton");
    expect(() => assertWritableUnder(baton, join(baton, "handoffs", "acme__api.json"))).not.toThrow();
    expect(existsSync(baton)).toBe(false);
    mkdirSync(join(baton, "handoffs"), { recursive: true });
    symlinkSync(join(root, "nowhere"), join(baton, "handoffs", "acme__api.json"));
    expect(() => assertWritableUnder(baton, join(baton, "handoffs", "acme__api.json"))).toThrow(
      UnsafePathError,
    );
  });
});

describe("createFileExclusiveSync", () => {
  it("refuses a symbolic link planted under the name, and its target stays untouched", () => {
    const target = join(root, "target");
    writeFileSync(target, "precious");
    const baton = join(root, ".baton");
    mkdirSync(baton, { mode: 0o700 });
    symlinkSync(target, join(baton, "draft"));
    expect(() => createFileExclusiveSync(baton, join(baton, "draft"), "123\n")).toThrow(UnsafePathError);
    expect(readFileSync(target, "utf8")).toBe("precious");
  });
});

describe("ensureRoot (~/.baton)", () => {
  it("creates ~/.baton with mode 0700", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    ensureRoot(paths.batonDir);
    expect(statSync(paths.batonDir).mode & 0o777).toBe(0o700);
  });

  it("tightens an existing ~/.baton to 0700", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    mkdirSync(paths.batonDir);
    chmodSync(paths.batonDir, 0o755);
    ensureRoot(paths.batonDir);
    expect(statSync(paths.batonDir).mode & 0o777).toBe(0o700);
  });

  it("refuses a ~/.baton that is a symbolic link", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    mkdirSync(join(root, "elsewhere"));
    symlinkSync(join(root, "elsewhere"), paths.batonDir);
    expect(() => ensureRoot(paths.batonDir)).toThrow(UnsafePathError);
  });

  it("refuses a ~/.baton owned by another user", async () => {
    const paths = resolveSandboxPaths({ HOME: root });
    makeForeignDir(paths.batonDir);
    expect(() => ensureRoot(paths.batonDir)).toThrow(UnsafePathError);
  });
});
