// The saved handoff `~/.baton/handoffs/<owner>__<name>.json`: what the runner and the Dockerfile engine read.
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { ensureBatonDir, writeFileAtomic } from "../envfile/index.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { BatonError } from "../errors.js";
import { ManagedStartupSchema } from "../transport/wire.js";

export const SAVED_HANDOFF_SCHEMA_VERSION = 1;

export const SavedHandoffSchema = z.object({
  schemaVersion: z.literal(SAVED_HANDOFF_SCHEMA_VERSION),
  repository: RepositorySlugSchema,
  operationId: z.string().min(1),
  overlayRevision: z.number().int().positive(),
  savedAt: z.string(),
  checkoutPath: z.string().min(1),
  /** Null when the activation result came from an older worker that sent no handoff. */
  managedStartup: ManagedStartupSchema.nullable(),
});
export type SavedHandoff = z.infer<typeof SavedHandoffSchema>;

export function savedHandoffPath(paths: SandboxPaths, repository: string): string {
  return join(paths.handoffsDir, `${repository.replace("/", "__")}.json`);
}

export function renderSavedHandoff(handoff: SavedHandoff): string {
  return `${JSON.stringify(SavedHandoffSchema.parse(handoff), null, 2)}\n`;
}

/** Writes the handoff atomically (0600) and returns its path. The handoffs folder is created 0700. */
export async function writeSavedHandoff(paths: SandboxPaths, handoff: SavedHandoff): Promise<string> {
  const file = savedHandoffPath(paths, handoff.repository);
  await ensureBatonDir(paths);
  await mkdir(paths.handoffsDir, { recursive: true, mode: 0o700 });
  await writeFileAtomic(file, renderSavedHandoff(handoff), { mode: 0o600 });
  return file;
}

export async function readSavedHandoff(paths: SandboxPaths, repository: string): Promise<SavedHandoff> {
  const file = savedHandoffPath(paths, repository);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new BatonError(
      "not_found",
      `no saved handoff for ${repository} at ${file}; run \`baton env activate ${repository}\` first`,
      {
        cause: error,
      },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BatonError(
      "invalid_input",
      `${file} is not JSON; run \`baton env activate ${repository}\` again`,
      { cause: error },
    );
  }
  return parseOrThrow(SavedHandoffSchema, json, file);
}
