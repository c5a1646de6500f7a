// Writes the evidence document: atomically to its file (temp file in the same folder, fsync, rename, fsync the
// folder) and as one JSON line on stdout. Synchronous, so it also works from signal and exception handlers.
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export function writeFileAtomicSync(path: string, content: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, "wx", 0o600);
  try {
    writeAll(fd, content);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
  try {
    const dirFd = openSync(dir, "r");
    fsyncSync(dirFd);
    closeSync(dirFd);
  } catch {
    // Some file systems refuse fsync on folders; the rename has happened either way.
  }
}

/** Writes everything, retrying short writes and EAGAIN (stdout may be a non-blocking pipe). */
export function writeAll(fd: number, content: string): void {
  const bytes = Buffer.from(content, "utf8");
  let at = 0;
  let spins = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(fd, bytes, at, bytes.length - at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN" || ++spins > 100_000) throw error;
    }
  }
}
