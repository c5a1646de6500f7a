// One `baton dockerfile apply` per repository at a time. The lock file beside the step records names its
// owner's pid from the moment it exists (written to a temporary file, then hard-linked into place, which fails
// when a lock is already there). A lock whose process is gone (killed, crashed) is taken over. Two runs that
// find the same dead owner in the same instant could both take over; that needs a crash and a race at once.
import { link, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxPaths } from "../config/sandbox.js";
import { BatonError } from "../errors.js";
import { ensureStepStateDir, stepStateDir } from "./state.js";

export type ReleaseLock = () => Promise<void>;

export function applyLockPath(paths: SandboxPaths, repository: string): string {
  return join(stepStateDir(paths), `${repository.replace("/", "__")}.lock`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, but another user's
  }
}

async function lockOwner(file: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(file, "utf8").catch(() => ""), 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export async function acquireApplyLock(paths: SandboxPaths, repository: string): Promise<ReleaseLock> {
  await ensureStepStateDir(paths);
  const file = applyLockPath(paths, repository);
  const draft = `${file}.${process.pid}.tmp`;
  await writeFile(draft, `${process.pid}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await link(draft, file);
        return () => rm(file, { force: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const owner = await lockOwner(file);
      if (owner !== undefined && isRunning(owner)) {
        throw new BatonError(
          "conflict",
          `another baton dockerfile apply ${repository} is running (pid ${owner}); wait for it to finish or stop it`,
          { details: { pid: owner } },
        );
      }
      await rm(file, { force: true }); // its process is gone: a stale lock
    }
    throw new BatonError(
      "conflict",
      `could not take ${file}; if no baton dockerfile apply ${repository} is running, delete it`,
    );
  } finally {
    await rm(draft, { force: true });
  }
}
