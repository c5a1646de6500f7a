// After an activation succeeded: check the handoff, fetch the overlay (unless the start's answer carried it),
// check every destination, then write the environment file, save the handoff and install the runner. Everything
// is checked before the first write, so an unsafe path or a symbolic link under ~/.baton leaves the sandbox's
// files as they were.
import * as z from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import type { Overlay } from "../envfile/overlay.js";
import { ServiceError } from "../errors.js";
import {
  parseManagedStartup,
  resolveHandoffPaths,
  SAVED_HANDOFF_SCHEMA_VERSION,
  type SavedHandoff,
  savedHandoffPath,
  writeSavedHandoff,
} from "../handoff/index.js";
import { assertWritableUnder } from "../safefs/index.js";
import type { OpsClient } from "../transport/index.js";
import type { Operation } from "../transport/wire.js";
import { applyOverlay } from "./apply-overlay.js";
import { installRunner } from "./install-runner.js";
import { prepareProxySettings, proxyConfigured, proxyTrustPaths } from "./proxy-trust.js";

export const RunnerInstallSchema = z.union([
  z.object({ installed: z.literal(true), path: z.string() }).strict(),
  z.object({ installed: z.literal(false), reason: z.string() }).strict(),
]);

/** What a successful activation wrote locally; part of `baton env activate --json`. */
export const LocalFilesSchema = z
  .object({
    environmentFile: z.string(),
    handoffFile: z.string(),
    checkoutPath: z.string(),
    /** Null when the handoff has nothing to run. */
    runner: RunnerInstallSchema.nullable(),
  })
  .strict();
export type LocalFiles = z.infer<typeof LocalFilesSchema>;

export interface Completed {
  saved: SavedHandoff;
  files: LocalFiles;
}

export async function completeActivation(input: {
  client: OpsClient;
  operation: Operation;
  /** The overlay the start's answer carried, if it did: then nothing is fetched. */
  overlay?: Overlay | undefined;
  paths: SandboxPaths;
  checkoutPath: string;
  now: () => Date;
  /** Read for BATON_PROXY_URL and the lease: the egress-proxy settings environment.sh carries. */
  env?: NodeJS.ProcessEnv;
}): Promise<Completed> {
  const { client, operation, paths, checkoutPath } = input;
  const result = operation.result;
  if (result === null) {
    throw new ServiceError(
      "service_error",
      `operation ${operation.id} succeeded without a result; report this to the service's operators`,
    );
  }
  const parsed = parseManagedStartup(result.managedStartup, operation.repository);
  const managedStartup =
    parsed === null ? null : resolveHandoffPaths(parsed, { checkoutPath, batonDir: paths.batonDir });
  const runPath = managedStartup?.state === "available" ? managedStartup.runPath : null;

  const overlay = input.overlay ?? (await client.getOverlay(operation.id));
  const destinations = [paths.environmentFile, savedHandoffPath(paths, operation.repository)];
  if (runPath !== null) destinations.push(runPath);
  const env = input.env ?? {};
  if (proxyConfigured(env)) destinations.push(...Object.values(proxyTrustPaths(paths)));
  for (const file of destinations) assertWritableUnder(paths.batonDir, file);
  const proxy = await prepareProxySettings({ env, paths });
  const applied = await applyOverlay({ overlay, paths, proxy });

  const saved: SavedHandoff = {
    schemaVersion: SAVED_HANDOFF_SCHEMA_VERSION,
    repository: operation.repository,
    operationId: operation.id,
    overlayRevision: overlay.revision,
    savedAt: input.now().toISOString(),
    checkoutPath,
    managedStartup,
  };
  const handoffFile = await writeSavedHandoff(paths, saved);
  const runner = runPath === null ? null : await installRunner(paths.batonDir, runPath);
  return { saved, files: { environmentFile: applied.path, handoffFile, checkoutPath, runner } };
}
