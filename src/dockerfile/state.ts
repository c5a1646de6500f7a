// Step records under ~/.baton/state/dockerfile/<owner>__<name>.json, keyed by handoff version and step
// digest, so a re-run skips what already succeeded. Written atomically after every step.
import { join } from "node:path";
import * as z from "zod";
import type { SandboxPaths } from "../config/sandbox.js";
import { parseOrThrow } from "../config/zod-error.js";
import { InputError } from "../errors.js";
import { readFileSafeSync, writeFileAtomicSync } from "../safefs/index.js";
import { type StepRecord, StepRecordSchema } from "./types.js";

const MAX_KEPT_RECORDS = 2000;
/** 2,000 records with 4,000-character output tails, JSON-escaped, stay well under this. */
export const MAX_STEP_STATE_BYTES = 64 * 1024 * 1024;

export const StepStateSchema = z.object({
  schemaVersion: z.literal(1),
  repository: z.string(),
  /** Every executed RUN step, oldest first: what a re-run consults. */
  records: z.array(StepRecordSchema),
  /** The latest apply, every step including skipped and not-run ones: what a disclosure reports. */
  lastRun: z
    .object({
      versionId: z.string(),
      finishedAt: z.string(),
      status: z.enum(["applied", "already_applied", "failed"]),
      steps: z.array(StepRecordSchema),
    })
    .optional(),
});
export type StepState = z.infer<typeof StepStateSchema>;

export function stepStateDir(paths: SandboxPaths): string {
  return join(paths.stateDir, "dockerfile");
}

/** Where heredoc scripts (`RUN <<EOF` bodies starting `#!`) are written to run. */
export function heredocScriptsDir(paths: SandboxPaths): string {
  return join(stepStateDir(paths), "scripts");
}

export function applyLockPath(paths: SandboxPaths, repository: string): string {
  return join(stepStateDir(paths), `${repository.replace("/", "__")}.lock`);
}

export function stepStatePath(paths: SandboxPaths, repository: string): string {
  return join(stepStateDir(paths), `${repository.replace("/", "__")}.json`);
}

export async function readStepState(paths: SandboxPaths, repository: string): Promise<StepState> {
  const file = stepStatePath(paths, repository);
  const text = readFileSafeSync(paths.batonDir, file, { maxBytes: MAX_STEP_STATE_BYTES });
  if (text === null) return { schemaVersion: 1, repository, records: [] };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file} is not JSON; delete it to start the Dockerfile over`, { cause: error });
  }
  return parseOrThrow(StepStateSchema, json, file);
}

/** Keys of steps that succeeded: `<versionId>:<digest>`. */
export function succeededKeys(state: StepState): Set<string> {
  return new Set(
    state.records.filter((r) => r.status === "succeeded").map((r) => `${r.versionId}:${r.digest}`),
  );
}

export async function writeStepState(paths: SandboxPaths, state: StepState): Promise<void> {
  const records = state.records.slice(-MAX_KEPT_RECORDS);
  writeFileAtomicSync(
    paths.batonDir,
    stepStatePath(paths, state.repository),
    `${JSON.stringify({ ...state, records }, null, 2)}\n`,
  );
}

export function appendRecord(state: StepState, record: StepRecord): StepState {
  return { ...state, records: [...state.records, record] };
}
