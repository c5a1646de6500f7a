// Writes the evidence document as one JSON line on stdout; the file copy goes through src/safefs (atomic, no
// symbolic links under ~/.baton). Synchronous, so it also works from signal and exception handlers.
import { writeSync } from "node:fs";

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
