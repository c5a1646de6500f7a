// Files that must not exist before Baton creates them (the Dockerfile apply lock's draft), and removal of
// Baton's own files, both under ~/.baton with the same folder checks as every write.
import { closeSync, fchmodSync, fsyncSync, linkSync, openSync, unlinkSync } from "node:fs";
import { dirname } from "node:path";
import { BatonError, UnsafePathError } from "../errors.js";
import { ensureFolderUnder, inspectFolderUnder } from "./folders.js";
import { CREATE_NEW, writeAllSync } from "./write-atomic.js";

/** Creates `path` with `content`; fails if anything, a symbolic link included, is already there. */
export function createFileExclusiveSync(root: string, path: string, content: string, mode = 0o600): void {
  ensureFolderUnder(root, dirname(path));
  let fd: number;
  try {
    fd = openSync(path, CREATE_NEW, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST" || code === "ELOOP") {
      throw new UnsafePathError(`${path} already exists; remove it and run the command again`, {
        path,
        cause: error,
      });
    }
    throw new BatonError("internal", `could not create ${path} (${code})`, { path, cause: error });
  }
  try {
    writeAllSync(fd, Buffer.from(content, "utf8"));
    fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A hard link `to` the file at `from` (both under root); false when `to` already exists. link() never follows
 * a symbolic link at `from` and fails on anything at `to`, so it cannot write through one either.
 */
export function linkFileUnder(root: string, from: string, to: string): boolean {
  if (!inspectFolderUnder(root, dirname(to))) {
    throw new BatonError("not_found", `folder ${dirname(to)} does not exist`, { path: to });
  }
  try {
    linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new BatonError("internal", `could not create ${to} (${(error as NodeJS.ErrnoException).code})`, {
      path: to,
      cause: error,
    });
  }
}

/** Removes `path` (a link itself, never its target); checks the folders first so no link leads elsewhere. */
export function removeFileUnder(root: string, path: string): void {
  if (!inspectFolderUnder(root, dirname(path))) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw new BatonError("internal", `could not remove ${path} (${(error as NodeJS.ErrnoException).code})`, {
      path,
      cause: error,
    });
  }
}
