// Gathers a disclosure's inputs from the sandbox: saved handoff, Dockerfile step state, ENV conflicts and the
// runner's evidence file. Missing pieces become nulls with a reason, never a failure: the disclosure says so.
import type { SandboxPaths } from "../config/sandbox.js";
import { readEnvironmentConflicts } from "../dockerfile/persist.js";
import { readStepState } from "../dockerfile/state.js";
import { BatonError, isBatonError } from "../errors.js";
import { DEFAULT_EVIDENCE_LIMIT_BYTES, type EvidenceRecord } from "../evidence/record.js";
import { EvidenceRecordSchema } from "../evidence/schema.js";
import type { SavedHandoff } from "../handoff/saved.js";
import { readSavedHandoff } from "../handoff/saved.js";
import { readFileSafeSync } from "../safefs/index.js";
import { findAgentInstructionFiles } from "./instructions.js";
import type { DisclosureInputs, RequiredCheck } from "./types.js";

/** Throws not_found, naming `baton env activate`, when the repository was never activated in this sandbox. */
export async function collectDisclosureInputs(input: {
  paths: SandboxPaths;
  repository: string;
  checks: RequiredCheck[];
}): Promise<DisclosureInputs> {
  const { paths, repository } = input;
  const handoff = await readHandoffIfAny(paths, repository);
  if (!handoff) {
    throw new BatonError(
      "not_found",
      `${repository} was not activated in this sandbox (no saved handoff in ${paths.handoffsDir}): run \`baton env activate ${repository}\` first. Repository names are case-sensitive.`,
    );
  }
  const steps = await readStepState(paths, repository);
  const evidence = readEvidence(paths.batonDir, handoff?.managedStartup?.evidencePath ?? null);
  return {
    repository,
    handoff,
    dockerfile: steps.lastRun ?? null,
    environmentConflicts: await readEnvironmentConflicts(paths),
    evidence: evidence.record,
    evidenceProblem: evidence.problem,
    checks: input.checks,
    agentInstructions: await findAgentInstructionFiles(
      handoff.checkoutPath,
      handoff.managedStartup?.agentInstructionsPath ?? null,
    ),
  };
}

async function readHandoffIfAny(paths: SandboxPaths, repository: string): Promise<SavedHandoff | null> {
  try {
    return await readSavedHandoff(paths, repository);
  } catch (error) {
    if (isBatonError(error) && error.code === "not_found") return null;
    throw error;
  }
}

/** `path` passed the handoff's path rules on read, so it lies under ~/.baton; a link or FIFO there is refused. */
function readEvidence(
  batonDir: string,
  path: string | null,
): { record: EvidenceRecord | null; problem: string | null } {
  if (!path) return { record: null, problem: "the handoff names no evidence path" };
  // The runner bounds its document to the limit; anything far larger is not its evidence.
  const text = readFileSafeSync(batonDir, path, { maxBytes: 4 * DEFAULT_EVIDENCE_LIMIT_BYTES });
  if (text === null) {
    return { record: null, problem: `the runner has not written ${path} (run \`node <runPath>\`)` };
  }
  try {
    return { record: EvidenceRecordSchema.parse(JSON.parse(text)) as EvidenceRecord, problem: null };
  } catch {
    return { record: null, problem: `${path} is not a valid evidence record` };
  }
}
