// `baton env show`: the current environment file's revision and names, read back from its generated header.
import { resolveSandboxPaths } from "../config/sandbox.js";
import { type EnvironmentManifest, parseEnvironmentHeader } from "../envfile/header.js";
import { readEnvironmentFile } from "../envfile/read-environment.js";
import { BatonError, InputError, isBatonError } from "../errors.js";

const REWRITE =
  "baton writes this file: run `baton env activate <owner/name>` (or `baton env apply --overlay <file>`) to write it again";

export interface EnvironmentFileView extends EnvironmentManifest {
  path: string;
}

export async function readEnvironmentManifest(env: NodeJS.ProcessEnv): Promise<EnvironmentFileView> {
  const { batonDir, environmentFile: path } = resolveSandboxPaths(env);
  const text = readOrExplain(batonDir, path);
  try {
    return { path, ...parseEnvironmentHeader(text) };
  } catch (error) {
    if (!isBatonError(error)) throw error;
    throw new InputError(`${path}: ${error.message}; ${REWRITE}`, { path, cause: error });
  }
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
