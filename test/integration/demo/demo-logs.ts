// The folder `npm run demo` names on its first line and keeps after it ends (the services' log files): tests
// read it, then remove it, so test runs leave nothing in the temporary folder.
import { rmSync } from "node:fs";

/** The log folder a demo's output names, or undefined when it names none. */
export function demoLogDir(output: string): string | undefined {
  return /^the services' logs \(JSON lines\) go to (\S+)\/, kept after the demo$/m.exec(output)?.[1];
}

/** Removes the log folder a demo's output names (nothing when it names none). */
export function removeDemoLogs(output: string): void {
  const dir = demoLogDir(output);
  if (dir) rmSync(dir, { recursive: true, force: true });
}
