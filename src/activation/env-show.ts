// `baton env show`: the current environment file's revision and names, read back from its generated header.
import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { parseEnvironmentHeader } from "../envfile/header.js";
import { BatonError, UnsafePathError } from "../errors.js";
import { describeCount, renderNameMapping } from "./render-mapping.js";

export interface EnvShowOptions {
  json: boolean;
  io: CliIo;
}

export async function runEnvShow(options: EnvShowOptions): Promise<ExitCode> {
  const { io } = options;
  const path = resolveSandboxPaths(io.env).environmentFile;
  const manifest = parseEnvironmentHeader(await readNoFollow(path));
  const { variables } = manifest;
  if (options.json) {
    writeJson(io.stdout, { revision: manifest.revision, path, variables });
    return EXIT.ok;
  }
  writeLine(io.stdout, `${path} (${describeCount(manifest.revision, variables.length)})`);
  for (const line of renderNameMapping(variables)) writeLine(io.stdout, line);
  return EXIT.ok;
}

async function readNoFollow(path: string): Promise<string> {
  try {
    const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new BatonError(
        "not_found",
        `no environment file at ${path} yet; run \`baton env activate <owner/name>\` or \`baton env apply --overlay <file>\``,
        { path, cause: error },
      );
    }
    if (code === "ELOOP") {
      throw new UnsafePathError(`${path} is a symbolic link; baton reads only the file it wrote`, { path });
    }
    throw new BatonError("internal", `cannot read ${path} (${code ?? "unknown error"})`, {
      path,
      cause: error,
    });
  }
}
