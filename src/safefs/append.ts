// Appends to a log-like file Baton writes and another process reads (the agent tools' turn-requests file):
// never through a symbolic link, never into a FIFO or device, never past a size bound, each record in one
// O_APPEND write so records from one writer never interleave and a reader sees whole lines.
import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { BatonError, InputError, UnsafePathError } from "../errors.js";
import { writeAllSync } from "./write-atomic.js";

// O_NONBLOCK: opening a FIFO for writing with no reader fails at once (ENXIO) instead of waiting for one.
const OPEN_FOR_APPEND =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface BoundedAppendOptions {
  /** The file may not grow past this many bytes: the append is refused whole and the file left as it was. */
  maxBytes: number;
  /** The mode of a file this call creates (existing files keep theirs). */
  mode?: number;
}

/**
 * Appends `content` (UTF-8) to `path`, creating the file (0600) when missing; its folder must exist. Refuses a
 * symbolic link, anything but a regular file, and an append that would take the file past `maxBytes`, each
 * with an error naming the path.
 */
export function appendFileBoundedSync(path: string, content: string, options: BoundedAppendOptions): void {
  const bytes = Buffer.from(content, "utf8");
  let fd: number;
  try {
    fd = openSync(path, OPEN_FOR_APPEND, options.mode ?? 0o600);
  } catch (error) {
    throw openError(error, path);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) {
      throw new UnsafePathError(`${path} is not a regular file; baton appends only to a regular file`, {
        path,
      });
    }
    if (stat.size + bytes.length > options.maxBytes) {
      throw new InputError(
        `${path} holds ${stat.size} bytes; ${bytes.length} more would pass its limit of ${options.maxBytes}`,
        { path, details: { size: stat.size, adding: bytes.length, maxBytes: options.maxBytes } },
      );
    }
    writeAllSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
}

function openError(error: unknown, path: string): BatonError {
  const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
  if (code === "ELOOP") {
    return new UnsafePathError(`${path} is a symbolic link; baton will not append through it`, {
      path,
      cause: error,
    });
  }
  if (code === "ENXIO") {
    return new UnsafePathError(`${path} is not a regular file (a FIFO with no reader)`, {
      path,
      cause: error,
    });
  }
  if (code === "ENOENT") {
    return new BatonError("not_found", `the folder of ${path} does not exist`, { path, cause: error });
  }
  return new BatonError("internal", `could not append to ${path} (${code})`, { path, cause: error });
}
