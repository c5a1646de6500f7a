// A one-repository seed for a local checkout (pure over what the caller found in it): `baton env test` and
// `baton/testing` run the repository's environment exactly as the service would deliver it.
import type { Readiness } from "../transport/wire.js";

export interface LocalEnvironment {
  dockerfilePath?: string;
  agentInstructionsPath?: string;
  startupScriptPath?: string;
  startupTimeoutSeconds?: number;
  /** The runner's readiness checks (none: the evidence says readiness is unknown). */
  readiness?: Readiness;
}

export interface LocalSeedInput {
  workspaceId: string;
  repository: string;
  sandboxEnv?: Record<string, string>;
  secrets?: { name: string; value: string; allowedHosts: string[] }[];
  environment: LocalEnvironment;
}

/** Paths an environment may have, in the order they are looked for. */
export const ENVIRONMENT_CANDIDATES = {
  dockerfilePath: ["Dockerfile", ".baton/Dockerfile"],
  agentInstructionsPath: ["AGENTS.md"],
  startupScriptPath: ["scripts/start.sh", "start.sh", ".baton/start.sh"],
} as const;

/** Picks each path from the files that exist (`exists` answers for checkout-relative paths). */
export function detectEnvironment(exists: (path: string) => boolean): LocalEnvironment {
  const found: LocalEnvironment = {};
  for (const [key, candidates] of Object.entries(ENVIRONMENT_CANDIDATES) as [
    keyof typeof ENVIRONMENT_CANDIDATES,
    readonly string[],
  ][]) {
    const path = candidates.find(exists);
    if (path) found[key] = path;
  }
  return found;
}

export function buildLocalSeed(input: LocalSeedInput) {
  return {
    workspaces: [
      {
        id: input.workspaceId,
        name: "Local",
        rollout: { repositoryEnvironments: true },
        members: [{ email: "owner@example.test", role: "owner" as const }],
        repositories: [
          {
            repository: input.repository,
            sandboxEnv: input.sandboxEnv ?? {},
            secrets: input.secrets ?? [],
            environment: { versionId: "local-1", readiness: { checks: [] }, ...input.environment },
          },
        ],
      },
    ],
  };
}

/** `owner/name` for a checkout folder without one given: `local/<folder name>`, made a valid slug. */
export function localRepositoryName(folderName: string): string {
  const name =
    folderName
      .toLowerCase()
      .replace(/[^a-z0-9._-]/g, "-")
      .replace(/^[^a-z0-9]+/, "") || "checkout";
  return `local/${name}`;
}
