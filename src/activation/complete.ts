// After an activation succeeded: check the handoff, fetch and apply the overlay, save the handoff, install the
// runner. The handoff is checked first so an unsafe path leaves the sandbox's files as they were.
import { z } from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import { ServiceError } from "../errors.js";
import {
  parseManagedStartup,
  resolveHandoffPaths,
  SAVED_HANDOFF_SCHEMA_VERSION,
  type SavedHandoff,
  writeSavedHandoff,
} from "../handoff/index.js";
import type { OpsClient } from "../transport/index.js";
import type { Operation } from "../transport/wire.js";
import { applyOverlay } from "./apply-overlay.js";
import { installRunner } from "./install-runner.js";

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
  paths: SandboxPaths;
  checkoutPath: string;
  now: () => Date;
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
    parsed === null ? null : await resolveHandoffPaths(parsed, { checkoutPath, batonDir: paths.batonDir });

  const overlay = await client.getOverlay(operation.id);
  const applied = await applyOverlay({ overlay, paths });

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
  const runner =
    managedStartup?.state === "available" && managedStartup.runPath !== null
      ? await installRunner(managedStartup.runPath)
      : null;
  return { saved, files: { environmentFile: applied.path, handoffFile, checkoutPath, runner } };
}
