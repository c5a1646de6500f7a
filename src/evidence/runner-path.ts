// `baton runner path`: prints the packaged runner's absolute path; fails when this build has no bundle.
import { existsSync } from "node:fs";
import { packagedRunnerPath } from "../activation/install-runner.js";
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { BatonError } from "../errors.js";

export async function printRunnerPath(options: { json: boolean; io: CliIo }): Promise<ExitCode> {
  const path = packagedRunnerPath();
  if (!existsSync(path)) {
    throw new BatonError(
      "not_found",
      `the runner bundle ${path} is missing from this baton build; run \`npm run build\``,
    );
  }
  if (options.json) writeJson(options.io.stdout, { path });
  else writeLine(options.io.stdout, path);
  return EXIT.ok;
}
