// Reads ~/.baton/environment.sh for the commands that trust its header (env show, dockerfile, disclose, the
// runner): no symbolic link on the way, a regular file only (a FIFO there must not hang them), bounded.
// Dependency-free, so the startup runner bundles it.
import { join } from "node:path";
import { readFileSafeSync } from "../safefs/read.js";

/** A 64 MiB overlay (the most `baton env apply` reads) quoted at worst four times over. */
export const MAX_ENVIRONMENT_FILE_BYTES = 256 * 1024 * 1024;

/** The file's text, or null when there is none yet. Throws UnsafePathError for a link or a special file. */
export function readEnvironmentFile(batonDir: string): string | null {
  return readFileSafeSync(batonDir, join(batonDir, "environment.sh"), {
    maxBytes: MAX_ENVIRONMENT_FILE_BYTES,
  });
}
