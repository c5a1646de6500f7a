// Writes ~/.baton/dockerfile-environment.sh from every applied repository's resolved ENV, keeping what was
// applied per repository in ~/.baton/state/dockerfile-environment.json so the merge can be redone.
import { join } from "node:path";
import * as z from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { renderDockerfileEnvironmentFile } from "../envfile/index.js";
import { SHELL_NAME_PATTERN } from "../envfile/overlay.js";
import { InputError } from "../errors.js";
import { readFileSafeSync, writeFileAtomicSync } from "../safefs/index.js";
import { type EnvironmentConflict, mergeRepositoryEnvironments } from "./merge-environment.js";

const EnvironmentStateSchema = z.object({
  schemaVersion: z.literal(1),
  repositories: z.array(
    z.object({
      repository: z.string(),
      variables: z.array(z.object({ name: z.string(), value: z.string() })),
    }),
  ),
});
type EnvironmentState = z.infer<typeof EnvironmentStateSchema>;

export interface PersistResult {
  path: string;
  /** This repository's variables and the names they are exported under. Never values. */
  variables: { name: string; assigned: string; shared: boolean }[];
  /** Names that cannot be shell variables and so were not exported. */
  notExported: string[];
  /** Every conflict across repositories in the merged file. */
  conflicts: EnvironmentConflict[];
}

const MAX_ENVIRONMENT_STATE_BYTES = 64 * 1024 * 1024;

export function environmentStatePath(paths: SandboxPaths): string {
  return join(paths.stateDir, "dockerfile-environment.json");
}

async function readState(paths: SandboxPaths): Promise<EnvironmentState> {
  const file = environmentStatePath(paths);
  const text = readFileSafeSync(paths.batonDir, file, { maxBytes: MAX_ENVIRONMENT_STATE_BYTES });
  if (text === null) return { schemaVersion: 1, repositories: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file} is not JSON; delete it and apply the Dockerfiles again`, { cause: error });
  }
  return parseOrThrow(EnvironmentStateSchema, json, file);
}

export async function persistDockerfileEnvironment(input: {
  paths: SandboxPaths;
  repository: string;
  variables: readonly { name: string; value: string }[];
}): Promise<PersistResult> {
  const { paths, repository } = input;
  const exportable = input.variables.filter((v) => SHELL_NAME_PATTERN.test(v.name));
  const notExported = input.variables.filter((v) => !SHELL_NAME_PATTERN.test(v.name)).map((v) => v.name);
  const state = await readState(paths);
  const repositories = [...state.repositories];
  const at = repositories.findIndex((r) => r.repository === repository);
  const entry = { repository, variables: exportable.map((v) => ({ name: v.name, value: v.value })) };
  if (at >= 0) repositories[at] = entry;
  else repositories.push(entry);
  const merged = mergeRepositoryEnvironments(repositories);
  const content = renderDockerfileEnvironmentFile({
    entries: merged.entries.map((e) => ({ assigned: e.assigned, value: e.value, repository: e.repository })),
  });
  const stateText = `${JSON.stringify({ schemaVersion: 1, repositories }, null, 2)}\n`;
  writeFileAtomicSync(paths.batonDir, environmentStatePath(paths), stateText);
  writeFileAtomicSync(paths.batonDir, paths.dockerfileEnvironmentFile, content, { mode: 0o600 });
  const variables = exportable.map((v) => {
    const own = merged.entries.find((e) => e.repository === repository && e.name === v.name);
    const shared = merged.entries.find((e) => e.name === v.name && e.sharedWith.includes(repository));
    return { name: v.name, assigned: (own ?? shared)?.assigned ?? v.name, shared: own === undefined };
  });
  return { path: paths.dockerfileEnvironmentFile, variables, notExported, conflicts: merged.conflicts };
}

/** Conflicts across every repository applied so far: what a disclosure reports. */
export async function readEnvironmentConflicts(paths: SandboxPaths): Promise<EnvironmentConflict[]> {
  const state = await readState(paths);
  return mergeRepositoryEnvironments(state.repositories).conflicts;
}
