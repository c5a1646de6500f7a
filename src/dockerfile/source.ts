// Where the Dockerfile and checkout come from: the saved handoff by default, `--file` / `--checkout` to
// override. Reads the file with a size bound so junk cannot exhaust memory, and never waits on a pipe.
import { constants, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { resolveCheckout } from "../config/checkout.js";
import type { SandboxPaths } from "../config/sandbox.js";
import { BatonError, InputError, isBatonError } from "../errors.js";
import { readSavedHandoff, type SavedHandoff } from "../handoff/index.js";
import { MAX_DOCKERFILE_BYTES } from "./limits.js";

export interface DockerfileSource {
  dockerfilePath: string;
  checkoutPath: string;
  /** The handoff's versionId, or `local:<file>` when there is no handoff. */
  versionId: string;
  /** The handoff reports the Dockerfile applied already (older workers). */
  reportedApplied: boolean;
  handoff: SavedHandoff | null;
}

export async function locateDockerfile(input: {
  paths: SandboxPaths;
  repository: string;
  file?: string | undefined;
  checkout?: string | undefined;
  cwd: string;
  env: NodeJS.ProcessEnv;
}): Promise<DockerfileSource> {
  const { paths, repository } = input;
  let handoff: SavedHandoff | null = null;
  try {
    handoff = await readSavedHandoff(paths, repository);
  } catch (error) {
    if (!(isBatonError(error) && error.code === "not_found" && input.file !== undefined)) throw error;
  }
  const startup = handoff?.managedStartup ?? null;
  // The handoff was read with the path rules applied again (readSavedHandoff), so its paths stay in its checkout.
  const checkoutPath = resolveCheckout({
    flag: input.checkout,
    cwd: input.cwd,
    paths,
    repository,
    saved: handoff?.checkoutPath,
    env: input.env,
  });
  let dockerfilePath: string;
  if (input.file !== undefined) dockerfilePath = resolve(input.cwd, input.file);
  else if (startup?.dockerfilePath) dockerfilePath = resolve(checkoutPath, startup.dockerfilePath);
  else {
    throw new BatonError(
      "not_found",
      `the saved handoff for ${repository} names no Dockerfile; pass --file <path> to apply one anyway`,
    );
  }
  return {
    dockerfilePath,
    checkoutPath,
    versionId: startup?.versionId ?? `local:${dockerfilePath}`,
    reportedApplied: startup?.dockerfileStatus === "applied" && input.file === undefined,
    handoff,
  };
}

function describeKind(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return "not a regular file";
}

const LIMIT_TEXT = `${MAX_DOCKERFILE_BYTES / 1024 / 1024} MiB`;

export async function readDockerfileText(path: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new BatonError("not_found", `cannot read the Dockerfile at ${path}; check --file or the checkout`, {
      cause: error,
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new InputError(
        `${path} is ${describeKind(stat)}, not a Dockerfile; point --file at a regular file`,
      );
    }
    const tooLarge = (size: string) =>
      new InputError(`${path} is ${size}; a Dockerfile over ${LIMIT_TEXT} is refused`);
    if (stat.size > MAX_DOCKERFILE_BYTES) throw tooLarge(`${stat.size} bytes`);
    // The size can change after the check (or be unknown, as in /proc): read at most one byte past the limit.
    const buffer = Buffer.alloc(MAX_DOCKERFILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_DOCKERFILE_BYTES) throw tooLarge(`over ${MAX_DOCKERFILE_BYTES} bytes`);
    }
    return buffer.toString("utf8", 0, length);
  } finally {
    await handle.close();
  }
}
