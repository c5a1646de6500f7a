// Every file `baton dockerfile apply` writes under ~/.baton, checked before the first RUN step: a symbolic
// link or a foreign folder anywhere on the way refuses the run before anything has run or been written.
import { join } from "node:path";
import type { SandboxPaths } from "../config/sandbox.js";
import { assertWritableUnder } from "../safefs/index.js";
import { environmentStatePath } from "./persist.js";
import { applyLockPath, heredocScriptsDir, stepStatePath } from "./state.js";

export function applyDestinations(paths: SandboxPaths, repository: string): string[] {
  return [
    applyLockPath(paths, repository),
    stepStatePath(paths, repository),
    environmentStatePath(paths),
    paths.dockerfileEnvironmentFile,
    // The scripts folder itself; each script gets a folder of its own below it.
    join(heredocScriptsDir(paths), "script"),
  ];
}

export function assertApplyDestinations(paths: SandboxPaths, repository: string): void {
  for (const file of applyDestinations(paths, repository)) assertWritableUnder(paths.batonDir, file);
}
