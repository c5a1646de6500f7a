// Path safety against real files and symbolic links, and the saved handoff written to a real temp HOME.
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveSandboxPaths } from "../../../src/config/sandbox.js";
import { UnsafePathError } from "../../../src/errors.js";
import {
  readSavedHandoff,
  resolveHandoffPaths,
  savedHandoffPath,
  writeSavedHandoff,
} from "../../../src/handoff/index.js";
import type { ManagedStartup } from "../../../src/transport/wire.js";

let home: string;
let checkout: string;
let batonDir: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "baton-handoff-"));
  checkout = join(home, "checkouts", "acme", "api");
  batonDir = join(home, ".baton");
  await mkdir(join(checkout, "scripts"), { recursive: true });
  await mkdir(batonDir, { recursive: true, mode: 0o700 });
  await writeFile(join(checkout, "scripts", "start.sh"), "#!/bin/sh\n");
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const handoff: ManagedStartup = {
  state: "available",
  owner: "agent",
  versionId: "envv_1",
  repository: "acme/api",
  dockerfilePath: "Dockerfile",
  dockerfileStatus: "not_applied",
  agentInstructionsPath: "AGENTS.md",
  startupScriptPath: "scripts/start.sh",
  runPath: "~/.baton/runner/baton-runner.cjs",
  evidencePath: "~/.baton/evidence/acme__api.json",
  readiness: { checks: [] },
  disclosure: null,
};

describe("handoff paths against the real file system", () => {
  it("resolves every path to an absolute path under its root, whether or not the file exists yet", async () => {
    const resolved = resolveHandoffPaths(handoff, { checkoutPath: checkout, batonDir });
    expect(resolved.startupScriptPath).toBe(join(checkout, "scripts", "start.sh"));
    expect(resolved.dockerfilePath).toBe(join(checkout, "Dockerfile"));
    expect(resolved.runPath).toBe(join(batonDir, "runner", "baton-runner.cjs"));
    expect(resolved.evidencePath).toBe(join(batonDir, "evidence", "acme__api.json"));
  });

  it("refuses a checkout file that is a symbolic link out of the checkout", async () => {
    await symlink("/etc/passwd", join(checkout, "AGENTS.md"));
    expect(() => resolveHandoffPaths(handoff, { checkoutPath: checkout, batonDir })).toThrow(UnsafePathError);
  });

  it("refuses a path whose folder is a symbolic link out, even when the file does not exist", async () => {
    const outside = await mkdtemp(join(tmpdir(), "baton-outside-"));
    try {
      await symlink(outside, join(batonDir, "evidence"));
      expect(() => resolveHandoffPaths(handoff, { checkoutPath: checkout, batonDir })).toThrow(
        /evidencePath goes through a symbolic link/,
      );
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("accepts a symbolic link that stays inside the checkout", async () => {
    await symlink(join(checkout, "scripts", "start.sh"), join(checkout, "AGENTS.md"));
    const resolved = resolveHandoffPaths(handoff, { checkoutPath: checkout, batonDir });
    expect(resolved.agentInstructionsPath).toBe(join(checkout, "AGENTS.md"));
  });
});

describe("the saved handoff", () => {
  it("is written atomically to ~/.baton/handoffs/<owner>__<name>.json, 0600, and reads back", async () => {
    const paths = resolveSandboxPaths({ HOME: home });
    const resolved = resolveHandoffPaths(handoff, { checkoutPath: checkout, batonDir });
    const saved = {
      schemaVersion: 1 as const,
      repository: "acme/api",
      operationId: "op_1",
      overlayRevision: 3,
      savedAt: new Date(0).toISOString(),
      checkoutPath: checkout,
      managedStartup: resolved,
    };
    const file = await writeSavedHandoff(paths, saved);
    expect(file).toBe(join(batonDir, "handoffs", "acme__api.json"));
    expect(savedHandoffPath(paths, "acme/api")).toBe(file);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual(saved);
    expect(await readSavedHandoff(paths, "acme/api")).toEqual(saved);
  });

  it("reading a missing handoff says which command writes it", async () => {
    const paths = resolveSandboxPaths({ HOME: home });
    await expect(readSavedHandoff(paths, "acme/web")).rejects.toThrow("baton env activate acme/web");
  });
});
