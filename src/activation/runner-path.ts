// `baton runner path`: where the packaged runner is; fails when this build has no bundle.
import { existsSync } from "node:fs";
import { BatonError } from "../errors.js";
import { packagedRunnerPath } from "./install-runner.js";

export function locateRunnerBundle(): string {
  const path = packagedRunnerPath();
  if (!existsSync(path)) {
    throw new BatonError(
      "not_found",
      `the runner bundle ${path} is missing from this baton build; run \`npm run build\``,
    );
  }
  return path;
}
