// `baton env show`: the current environment file's revision and names, read back from its generated header.
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseEnvironmentHeader } from "../envfile/header.js";
import { readEnvironmentFile } from "../envfile/read-environment.js";
import { BatonError } from "../errors.js";
import { describeCount, renderNameMapping } from "./render-mapping.js";

export interface EnvShowOptions {
  json: boolean;
  io: CliIo;
}

export async function runEnvShow(options: EnvShowOptions): Promise<ExitCode> {
  const { io } = options;
  const { batonDir, environmentFile: path } = resolveSandboxPaths(io.env);
  const manifest = parseEnvironmentHeader(readOrExplain(batonDir, path));
  const { variables } = manifest;
  if (options.json) {
    writeJson(io.stdout, { revision: manifest.revision, path, variables });
    return EXIT.ok;
  }
  writeLine(io.stdout, `${path} (${describeCount(manifest.revision, variables.length)})`);
  for (const line of renderNameMapping(variables)) writeLine(io.stdout, line);
  return EXIT.ok;
}

function readOrExplain(batonDir: string, path: string): string {
  // Refuses a symbolic link, a FIFO or another special file in its place (UnsafePathError, exit 1).
  const text = readEnvironmentFile(batonDir);
  if (text === null) {
    throw new BatonError(
      "not_found",
      `no environment file at ${path} yet; run \`baton env activate <owner/name>\` or \`baton env apply --overlay <file>\``,
      { path },
    );
  }
  return text;
}
