// Atomic, no-follow writes of Baton's files under ~/.baton: a reader sees the previous file or the complete new
// one, never part of one, and nothing is ever written through a symbolic link.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  openSync,
  readdirSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { BatonError, isBatonError, UnsafePathError } from "../errors.js";
import { ensureFolderUnder, inspectFolderUnder, lstatIfAny } from "./folders.js";

const TEMP_NAME = /^\.(.+)\.(\d+)-[0-9a-f]{12}\.tmp$/;
export const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** `.<name>.<pid>-<12 hex>.tmp` beside `path`: unguessable, so a link planted under the name cannot exist. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
}

/** Refuses a target that is a symbolic link or anything but a regular file; a missing one is fine. */
export function assertReplaceableFile(path: string): void {
  const stat = lstatIfAny(path);
  if (stat === undefined) return;
  if (stat.isSymbolicLink()) {
    throw new UnsafePathError(
      `${path} is a symbolic link; baton will not write through it. Remove it (rm ${path}) and run the command again`,
      { path },
    );
  }
  if (!stat.isFile()) {
    throw new UnsafePathError(
      `${path} exists and is not a regular file; remove it and run the command again`,
      {
        path,
      },
    );
  }
}

/**
 * Checks, without writing anything, that `path` can be written under `root`: every existing folder on the way
 * is a real folder of this user and the file, if present, is a regular file. Lets a command check all of its
 * destinations before it writes the first one.
 */
export function assertWritableUnder(root: string, path: string): void {
  if (inspectFolderUnder(root, dirname(path))) assertReplaceableFile(path);
}

/**
 * Writes `content` to `path` under `root` (~/.baton): folders are made 0700 and checked all the way down
 * from the root, the temporary file is created O_EXCL|O_NOFOLLOW, synced, renamed over the target, and the
 * folder synced. rename() replaces a link rather than following it, so a link swapped in after the checks
 * still cannot redirect the write. On any failure the previous file is left as it was.
 */
export function writeFileAtomicSync(
  root: string,
  path: string,
  content: string | Uint8Array,
  options: { mode?: number } = {},
): void {
  const mode = options.mode ?? 0o600;
  const dir = dirname(path);
  try {
    ensureFolderUnder(root, dir);
    assertReplaceableFile(path);
  } catch (error) {
    throw wrapWriteError(error, path);
  }
  const temp = temporaryPathFor(path);
  try {
    const fd = openSync(temp, CREATE_NEW, mode);
    try {
      writeAllSync(fd, typeof content === "string" ? Buffer.from(content, "utf8") : content);
      fchmodSync(fd, mode); // the umask may have narrowed or (with a 0 umask) not narrowed it
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw wrapWriteError(error, path);
  }
  syncFolder(dir);
  removeStaleTemporaries(dir, basename(path));
}

/** The same write for async callers; the work is synchronous and small. */
export async function writeFileAtomic(
  root: string,
  path: string,
  content: string | Uint8Array,
  options: { mode?: number } = {},
): Promise<void> {
  writeFileAtomicSync(root, path, content, options);
}

export function writeAllSync(fd: number, bytes: Uint8Array): void {
  let at = 0;
  while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at);
}

function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on folders; the rename has happened either way.
  }
}

/** Temporary files left by writers that were killed mid-write; removed only when their process is gone. */
export function removeStaleTemporaries(dir: string, base: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match || match[1] !== base || isProcessAlive(Number(match[2]))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // another writer removed it first
    }
  }
}

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // alive, but another user's
  }
}

function wrapWriteError(error: unknown, path: string): BatonError {
  if (isBatonError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
  if (code === "ELOOP" || code === "EEXIST") {
    return new UnsafePathError(`${path}: refusing to follow a symbolic link or replace what appeared there`, {
      path,
      cause: error,
    });
  }
  return new BatonError("internal", `could not write ${path} (${code}); the previous file is unchanged`, {
    path,
    cause: error,
  });
}
