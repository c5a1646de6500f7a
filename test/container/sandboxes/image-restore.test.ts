// The sandbox image build reads a cached layer folder back from the engine's image of the same inputs (a fresh
// clone keeps no node_modules/.cache, the engine keeps its images). The folder must come back exactly as it went
// in: the namespace driver runs bubblewrap on it, so owners, modes, links and device nodes all matter.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a build script in plain JavaScript, without declarations.
import { restoreLayerFromImage } from "../../../scripts/sandbox-image/from-engine.mjs";
import { resolveSandboxImage } from "../../../src/server/adapters/sandboxes/image.js";

/** Every entry of a tree with its type, owner, mode, size and link target, sorted. */
function listing(dir: string): string {
  return execFileSync("find", [".", "-printf", "%p %y %U:%G %m %s %l\\n"], { cwd: dir, encoding: "utf8" })
    .split("\n")
    .sort()
    .join("\n");
}

describe("restoring a cached layer folder from the engine's image", () => {
  const work = mkdtempSync(join(tmpdir(), "baton-image-restore-"));
  const tag = `baton-restore-test:${randomBytes(6).toString("hex")}`;

  afterAll(() => {
    execFileSync("docker", ["rmi", "-f", tag], { stdio: "ignore" });
    rmSync(work, { recursive: true, force: true });
  });

  it("gives back the imported tree with its owners, modes, links and device nodes", () => {
    const tree = join(work, "tree");
    mkdirSync(join(tree, "home", "agent"), { recursive: true });
    mkdirSync(join(tree, "dev"));
    writeFileSync(join(tree, "home", "agent", "notes.txt"), "kept\n");
    chownSync(join(tree, "home", "agent"), 1000, 1000);
    chownSync(join(tree, "home", "agent", "notes.txt"), 1000, 1000);
    chmodSync(join(tree, "home", "agent"), 0o750);
    writeFileSync(join(tree, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(tree, "run.sh"), 0o4755);
    symlinkSync("home/agent/notes.txt", join(tree, "notes"));
    execFileSync("mknod", ["-m", "666", join(tree, "dev", "null"), "c", "1", "3"]);
    execFileSync("bash", ["-c", `tar --numeric-owner -C '${tree}' -c . | docker import - '${tag}'`], {
      stdio: "ignore",
    });

    const target = join(work, "restored");
    const restored = restoreLayerFromImage({ tag, target, which: "only", scratch: join(work, "scratch") });

    expect(restored).toBe(true);
    expect(listing(target)).toBe(listing(tree));
    expect(existsSync(join(work, "scratch"))).toBe(false);
  });

  it("answers false and leaves nothing behind when the engine has no such image", () => {
    const target = join(work, "absent");
    const restored = restoreLayerFromImage({
      tag: `${tag}-missing`,
      target,
      which: "only",
      scratch: join(work, "scratch-absent"),
    });
    expect(restored).toBe(false);
    expect(existsSync(target)).toBe(false);
    expect(existsSync(join(work, "scratch-absent"))).toBe(false);
  });
});

describe("a fresh clone's sandbox image build", () => {
  const cache = mkdtempSync(join(tmpdir(), "baton-image-cache-"));

  afterAll(() => rmSync(cache, { recursive: true, force: true }));

  it("reads the agents layer back from the engine's agents image instead of installing the agents again", () => {
    // The test run's image (global setup) put the agents image in the engine; an empty cache folder is what a
    // fresh clone has.
    const built = resolveSandboxImage();
    expect(built.agentsDir).toBeTruthy();
    const output = execFileSync(process.execPath, ["scripts/build-sandbox-image.mjs", "--skip-build"], {
      env: { ...process.env, BATON_SANDBOX_CACHE: cache },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).toMatch(/agents layer restored from baton-sandbox-agents:[0-9a-f]{16} in [\d.]+ s/);
    expect(output).not.toContain("installed the");
    const restored = join(cache, basename(built.agentsDir!));
    expect(existsSync(join(restored, "complete"))).toBe(true);
    expect(listing(join(restored, "opt"))).toBe(listing(join(built.agentsDir!, "opt")));
  }, 180_000);
});
