// Hostile Dockerfiles through the real CLI: `baton dockerfile apply` exits 1 with `Dockerfile line N: …` (or a
// clear error about the file) and runs nothing, never hangs on a pipe, never dies of an unexpected failure.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_DOCKERFILES } from "../../../fixtures/dockerfiles/hostile.mjs";
import { createSandbox, type Sandbox } from "./helpers.js";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox();
});
afterAll(async () => {
  await sandbox?.cleanup();
});

const refused = HOSTILE_DOCKERFILES.filter((c) => c.refused !== null);

describe("hostile Dockerfiles through `baton dockerfile apply`", () => {
  it.each(refused.map((c, i) => [c.name, c, i] as const))(
    "%s: exit 1, the line named, nothing run",
    async (_name, hostile, i) => {
      const file = await sandbox.writeDockerfile(hostile.text(), `Dockerfile.${i}`);
      const run = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", file]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`Dockerfile line ${hostile.refused!.line}: `));
      expect(run.stderr).toMatch(hostile.refused!.message);
      expect(run.stderr).not.toContain("unexpected failure");
      // Every step that runs leaves a record there; a refused Dockerfile runs none, not even those before it.
      expect(existsSync(join(sandbox.home, ".baton", "state", "dockerfile", "acme__api.json"))).toBe(false);
    },
  );

  it.each([
    [
      "a named pipe nobody writes to",
      "fifo",
      /is a named pipe \(FIFO\), not a Dockerfile; point --file at a regular file/,
    ],
    ["a directory", "dir", /is a directory, not a Dockerfile/],
    ["a character device", "/dev/zero", /is a character device, not a Dockerfile/],
    [
      "a 1 MiB file of comments, and a few bytes more",
      "big",
      /is 1048587 bytes; a Dockerfile over 1 MiB is refused/,
    ],
    ["a sparse 8 GiB file", "sparse", /is 8589934592 bytes; a Dockerfile over 1 MiB is refused/],
  ])("--file naming %s exits 1 saying what it is", async (_name, kind, message) => {
    let file = kind;
    if (kind === "fifo") {
      file = join(sandbox.home, "fifo");
      execFileSync("mkfifo", [file]);
    } else if (kind === "dir") {
      file = sandbox.checkout;
    } else if (kind === "big") {
      file = await sandbox.writeDockerfile(`FROM x\n${"# 1234567\n".repeat(104_858)}`, "Dockerfile.big");
    } else if (kind === "sparse") {
      file = join(sandbox.home, "sparse");
      await writeFile(file, "FROM x\n");
      await truncate(file, 8 * 1024 * 1024 * 1024);
    }
    for (const mode of ["plan", "apply"]) {
      const run = await sandbox.baton(["dockerfile", mode, "acme/api", "--file", file]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toMatch(message);
    }
  });
});
