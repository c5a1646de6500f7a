// Reads of the files Baton trusts (its own under ~/.baton, a handoff named on the command line): never through
// a symbolic link, never anything but a regular file (a FIFO would block the reader forever), never unbounded.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { dirname } from "node:path";
import { BatonError, InputError, UnsafePathError } from "../errors.js";
import { inspectFolderUnder } from "./folders.js";

// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; regular files ignore it.
const OPEN_FOR_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface SafeReadOptions {
  /** Larger files are refused: whatever wrote them was not Baton. */
  maxBytes: number;
}

/**
 * Reads `path` as UTF-8, or answers null when it does not exist. With a `root` (~/.baton) every folder from the
 * root down must be a real folder of this user, as for writes. Refuses a symbolic link, a FIFO, a device, a
 * folder, and a file over `maxBytes`, each with an error naming the path and what to do.
 */
export function readFileSafeSync(root: string | null, path: string, options: SafeReadOptions): string | null {
  if (root !== null && !inspectFolderUnder(root, dirname(path))) return null;
  let fd: number;
  try {
    fd = openSync(path, OPEN_FOR_READ);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return null;
    if (code === "ELOOP") {
      throw new UnsafePathError(
        `${path} is a symbolic link; baton reads only the file it wrote. Remove it (rm ${path}) and run the command that writes it again`,
        { path, cause: error },
      );
    }
    throw new BatonError("internal", `cannot read ${path} (${code ?? "unknown error"})`, {
      path,
      cause: error,
    });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new UnsafePathError(
        `${path} is not a regular file (${describeKind(stat)}); remove it and run the command that writes it again`,
        { path },
      );
    }
    if (stat.size > options.maxBytes) {
      throw new InputError(
        `${path} is ${stat.size} bytes, more than baton ever writes there (${options.maxBytes}); remove it and run the command that writes it again`,
        { path },
      );
    }
    return readBounded(fd, path, options.maxBytes);
  } finally {
    closeSync(fd);
  }
}

function readBounded(fd: number, path: string, maxBytes: number): string {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
    const read = readSync(fd, chunk, 0, chunk.length, null);
    if (read === 0) break;
    chunks.push(chunk.subarray(0, read));
    total += read;
    // The file grew while being read: refuse rather than read without end.
    if (total > maxBytes)
      throw new InputError(`${path} grew past ${maxBytes} bytes while being read`, { path });
  }
  return Buffer.concat(chunks, total).toString("utf8");
}

function describeKind(stat: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean }): string {
  if (stat.isFIFO()) return "a FIFO";
  if (stat.isDirectory()) return "a folder";
  if (stat.isSocket()) return "a socket";
  return "a device or other special file";
}
