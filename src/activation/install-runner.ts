// Copies the packaged startup runner to the handoff's runPath, so `node <runPath>` works in the sandbox.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { writeFileAtomicSync } from "../safefs/index.js";

/** dist/runner/baton-runner.cjs, next to the compiled CLI (this file is dist/src/activation/install-runner.js). */
export function packagedRunnerPath(): string {
  return fileURLToPath(new URL("../../runner/baton-runner.cjs", import.meta.url));
}

export type RunnerInstall = { installed: true; path: string } | { installed: false; reason: string };

/** `runPath` lies under `batonDir` (the handoff's path rules); every folder between is checked on the way. */
export async function installRunner(
  batonDir: string,
  runPath: string,
  bundle = packagedRunnerPath(),
): Promise<RunnerInstall> {
  if (!existsSync(bundle)) {
    return { installed: false, reason: `the runner bundle ${bundle} is missing from this baton build` };
  }
  writeFileAtomicSync(batonDir, runPath, readFileSync(bundle), { mode: 0o700 });
  return { installed: true, path: runPath };
}
