// The saved handoff `~/.baton/handoffs/<owner>__<name>.json`: what the runner and the Dockerfile engine read.
import { join } from "node:path";
import * as z from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { BatonError } from "../errors.js";
import { readFileSafeSync, writeFileAtomicSync } from "../safefs/index.js";
import { ManagedStartupSchema } from "../transport/wire.js";
import { checkSavedHandoffPaths } from "./check-saved.js";

/** A saved handoff is a few KiB; anything near this was not written by baton. */
export const MAX_SAVED_HANDOFF_BYTES = 1024 * 1024;

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
  writeFileAtomicSync(paths.batonDir, file, renderSavedHandoff(handoff), { mode: 0o600 });
  return file;
}

/**
 * Reads the saved handoff (never through a link, never a FIFO) and applies the path rules to it again: it
 * names this repository, its checkout is absolute and plain, and every managedStartup path stays in its root.
 */
export async function readSavedHandoff(paths: SandboxPaths, repository: string): Promise<SavedHandoff> {
  const file = savedHandoffPath(paths, repository);
  const text = readFileSafeSync(paths.batonDir, file, { maxBytes: MAX_SAVED_HANDOFF_BYTES });
  if (text === null) {
    throw new BatonError(
      "not_found",
      `no saved handoff for ${repository} at ${file}; run \`baton env activate ${repository}\` first`,
      { path: file },
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
  const saved = parseOrThrow(SavedHandoffSchema, json, file);
  return checkSavedHandoffPaths(saved, { file, batonDir: paths.batonDir, expected: repository });
}
