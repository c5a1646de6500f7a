// Copies the packaged startup runner to the handoff's runPath, so `node <runPath>` works in the sandbox.
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { writeFileAtomic } from "../envfile/index.js";

/** dist/runner/baton-runner.cjs, next to the compiled CLI (this file is dist/src/activation/install-runner.js). */
export function packagedRunnerPath(): string {
  return fileURLToPath(new URL("../../runner/baton-runner.cjs", import.meta.url));
}

export type RunnerInstall = { installed: true; path: string } | { installed: false; reason: string };

export async function installRunner(runPath: string, bundle = packagedRunnerPath()): Promise<RunnerInstall> {
  if (!existsSync(bundle)) {
    return { installed: false, reason: `the runner bundle ${bundle} is missing from this baton build` };
  }
  // runPath has been checked to stay inside ~/.baton; the writer refuses links and foreign-owned folders.
  await mkdir(dirname(runPath), { recursive: true, mode: 0o700 });
  await writeFileAtomic(runPath, await readFile(bundle, "utf8"), { mode: 0o700 });
  return { installed: true, path: runPath };
}
