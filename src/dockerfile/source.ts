// Where the Dockerfile and checkout come from: the saved handoff by default, `--file` / `--checkout` to
// override. Reads the file with a size bound so junk cannot exhaust memory.
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { resolveCheckout } from "../config/checkout.js";
import type { SandboxPaths } from "../config/sandbox.js";
import { BatonError, InputError, isBatonError } from "../errors.js";
import { readSavedHandoff, type SavedHandoff } from "../handoff/index.js";

const MAX_DOCKERFILE_BYTES = 16 * 1024 * 1024;

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

export async function readDockerfileText(path: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new BatonError("not_found", `cannot read the Dockerfile at ${path}; check --file or the checkout`, {
      cause: error,
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new InputError(`${path} is not a regular file`);
    if (stat.size > MAX_DOCKERFILE_BYTES) {
      throw new InputError(`${path} is ${stat.size} bytes; a Dockerfile over 16 MiB is refused`);
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
