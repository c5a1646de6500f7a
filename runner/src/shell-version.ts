// Which bash ran the script, without starting another one: bash's binary carries its version as the constant
// `@(#)Bash version 5.2.15(1) release GNU` (version.c's sccs_version), so the runner finds the `bash` the
// script ran under on PATH, as spawning it did, and reads that string from the file.
import { accessSync, closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

const MARKER = Buffer.from("@(#)Bash version ");
const VERSION = /^([0-9][0-9A-Za-z.()]*) ([a-z]+)/;
/** Larger files are not a bash binary worth reading (bash is about 1.3 MB). */
const MAX_BINARY_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 256 * 1024;

/** The first executable `bash` on PATH (an empty PATH searches /bin and /usr/bin, as execvp does). */
export function findBash(path: string | undefined): string | null {
  const dirs = path === undefined || path === "" ? ["/bin", "/usr/bin"] : path.split(delimiter);
  for (const dir of dirs) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, "bash");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * `GNU bash, version 5.2.15(1)-release` from the binary's version constant, or null when it has none. Read
 * from the end in 256 KiB pieces: the constant sits in read-only data, after the code.
 */
export function readBashVersion(binary: string): string | null {
  let fd: number;
  try {
    fd = openSync(binary, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_BINARY_BYTES) return null;
    // Pieces overlap by the marker and its version, so a constant split between two pieces is still whole.
    const overlap = MARKER.length + 64;
    const buffer = Buffer.alloc(CHUNK_BYTES + overlap);
    for (let end = stat.size; end > 0; end -= CHUNK_BYTES) {
      const start = Math.max(0, end - CHUNK_BYTES);
      const length = readSync(fd, buffer, 0, Math.min(stat.size, end + overlap) - start, start);
      const found = findVersion(buffer.subarray(0, length));
      if (found !== null) return found;
    }
    return null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

function findVersion(bytes: Buffer): string | null {
  for (let at = bytes.lastIndexOf(MARKER); at >= 0; at = at > 0 ? bytes.lastIndexOf(MARKER, at - 1) : -1) {
    const match = VERSION.exec(bytes.toString("latin1", at + MARKER.length, at + MARKER.length + 64));
    if (match !== null) return `GNU bash, version ${match[1]}-${match[2]}`;
  }
  return null;
}
