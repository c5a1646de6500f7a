// One `baton dockerfile apply` per repository at a time. The lock file beside the step records names its
// owner's pid from the moment it exists (written to an unguessably named draft created O_EXCL|O_NOFOLLOW, then
// hard-linked into place, which fails when a lock is already there). A lock whose process is gone (killed,
// crashed) is taken over. Two runs that find the same dead owner in the same instant could both take over;
// that needs a crash and a race at once.
import { basename, dirname } from "node:path";
import type { SandboxPaths } from "../config/sandbox.js";
import { BatonError } from "../errors.js";
import {
  createFileExclusiveSync,
  isProcessAlive,
  linkFileUnder,
  readFileSafeSync,
  removeFileUnder,
  removeStaleTemporaries,
  temporaryPathFor,
} from "../safefs/index.js";
import { assertApplyDestinations } from "./destinations.js";
import { applyLockPath } from "./state.js";

export type ReleaseLock = () => Promise<void>;

function lockOwner(root: string, file: string): number | undefined {
  const pid = Number.parseInt(readFileSafeSync(root, file, { maxBytes: 64 }) ?? "", 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Checks every destination of the run first (see destinations.ts), then takes the repository's lock. */
export async function acquireApplyLock(paths: SandboxPaths, repository: string): Promise<ReleaseLock> {
  assertApplyDestinations(paths, repository);
  const root = paths.batonDir;
  const file = applyLockPath(paths, repository);
  const draft = temporaryPathFor(file);
  createFileExclusiveSync(root, draft, `${process.pid}\n`);
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (linkFileUnder(root, draft, file)) {
        removeStaleTemporaries(dirname(file), basename(file));
        return async () => removeFileUnder(root, file);
      }
      const owner = lockOwner(root, file);
      if (owner !== undefined && isProcessAlive(owner)) {
        throw new BatonError(
          "conflict",
          `another baton dockerfile apply ${repository} is running (pid ${owner}); wait for it to finish or stop it`,
          { details: { pid: owner } },
        );
      }
      removeFileUnder(root, file); // its process is gone: a stale lock
    }
    throw new BatonError(
      "conflict",
      `could not take ${file}; if no baton dockerfile apply ${repository} is running, delete it`,
    );
  } finally {
    removeFileUnder(root, draft);
  }
}
