// Builds the `managedStartup` handoff from a repository's current environment version. Pure.
//   available        the version has a startup script and every path is a safe checkout-relative path
//   unavailable      no environment version, or a version without a startup script: nothing to run
//   delivery_failed  a configured path is unsafe (absolute, `~`, `..`, control characters), or a runPath or
//                    evidencePath that does not stay under `~/.baton/`: not delivered
// `unavailable` and `delivery_failed` carry a disclosure and null paths, never runnable ones.
import {
  evidencePathFor,
  type ManagedStartup,
  NO_ENVIRONMENT_VERSION_ID,
  type Readiness,
  RUNNER_RUN_PATH,
} from "../../../transport/wire.js";

export interface EnvironmentVersion {
  versionId: string;
  dockerfilePath: string | null;
  agentInstructionsPath: string | null;
  startupScriptPath: string | null;
  /** `~/.baton/...`; null uses RUNNER_RUN_PATH. */
  runPath: string | null;
  /** `~/.baton/...`; null uses evidencePathFor(repository). */
  evidencePath: string | null;
  readiness: Readiness;
  startupTimeoutSeconds: number | null;
}

/** Why a configured path cannot be delivered, or undefined when it is a safe path relative to the checkout. */
export function checkCheckoutPath(path: string): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(path)) return "contains a control character";
  if (path.startsWith("/") || path.startsWith("~") || path.includes("\\"))
    return "is not relative to the checkout";
  if (path.split("/").some((segment) => segment === ".." || segment === ""))
    return "leaves or skips a folder";
  return undefined;
}

const BATON_PATH_PREFIX = "~/.baton/";

/**
 * Why a runner or evidence path cannot be delivered, or undefined when it is a safe `~/.baton/...` path. The
 * client refuses the same paths (src/handoff/paths.ts); checking here turns them into `delivery_failed`.
 */
export function checkBatonPath(path: string): string | undefined {
  if (/[\x00-\x1f\x7f]/.test(path)) return "contains a control character";
  if (path.includes("\\")) return "contains a backslash";
  if (!path.startsWith(BATON_PATH_PREFIX)) return `does not start with ${BATON_PATH_PREFIX}`;
  if (
    path
      .slice(BATON_PATH_PREFIX.length)
      .split("/")
      .some((segment) => segment === ".." || segment === "")
  )
    return "leaves or skips a folder";
  return undefined;
}

export function buildManagedStartup(
  repository: string,
  version: EnvironmentVersion | undefined,
): ManagedStartup {
  const closed = (
    state: "unavailable" | "delivery_failed",
    versionId: string,
    disclosure: string,
  ): ManagedStartup => ({
    state,
    owner: "agent",
    versionId,
    repository,
    dockerfilePath: null,
    dockerfileStatus: "not_applied",
    agentInstructionsPath: null,
    startupScriptPath: null,
    runPath: null,
    evidencePath: null,
    readiness: { checks: [] },
    disclosure,
  });
  if (!version) {
    return closed(
      "unavailable",
      NO_ENVIRONMENT_VERSION_ID,
      `${repository} has no configured environment: no managed startup was delivered; set the project up by hand and say so in the pull request.`,
    );
  }
  const paths = {
    dockerfilePath: version.dockerfilePath,
    agentInstructionsPath: version.agentInstructionsPath,
    startupScriptPath: version.startupScriptPath,
  };
  const batonPaths = {
    runPath: version.runPath ?? RUNNER_RUN_PATH,
    evidencePath: version.evidencePath ?? evidencePathFor(repository),
  };
  const problems = [
    ...Object.entries(paths).map(
      ([field, value]) => [field, value === null ? undefined : checkCheckoutPath(value)] as const,
    ),
    ...Object.entries(batonPaths).map(([field, value]) => [field, checkBatonPath(value)] as const),
  ];
  for (const [field, problem] of problems) {
    if (problem) {
      return closed(
        "delivery_failed",
        version.versionId,
        `environment version ${version.versionId} of ${repository} could not be delivered: its ${field} ${problem}; no startup steps were handed over.`,
      );
    }
  }
  if (version.startupScriptPath === null) {
    return closed(
      "unavailable",
      version.versionId,
      `environment version ${version.versionId} of ${repository} has no startup script: no managed startup was delivered.`,
    );
  }
  return {
    state: "available",
    owner: "agent",
    versionId: version.versionId,
    repository,
    ...paths,
    dockerfileStatus: "not_applied",
    ...batonPaths,
    readiness: version.readiness,
    ...(version.startupTimeoutSeconds === null
      ? {}
      : { startupTimeoutSeconds: version.startupTimeoutSeconds }),
    disclosure: null,
  };
}
