// What a pull-request disclosure is made from: plain data gathered by collect.ts, rendered by render.ts.
import type { StepRecord } from "../dockerfile/types.js";
import type { EvidenceRecord } from "../evidence/record.js";
import type { SavedHandoff } from "../handoff/saved.js";
import type { ProxyRefusalWire } from "../transport/wire.js";

export const CHECK_RESULTS = ["passed", "failed", "not_run"] as const;
export type CheckResult = (typeof CHECK_RESULTS)[number];

/** A check the repository's agent instructions require, as the agent reports it with `--check`. */
export interface RequiredCheck {
  name: string;
  result: CheckResult;
  note: string | null;
}

export interface DockerfileRun {
  versionId: string;
  finishedAt: string;
  status: "applied" | "already_applied" | "failed";
  steps: StepRecord[];
}

export interface EnvironmentConflictSummary {
  name: string;
  assignments: { repository: string; assigned: string }[];
}

export interface DisclosureInputs {
  repository: string;
  /** Null when the repository was never activated in this sandbox. */
  handoff: SavedHandoff | null;
  /** The latest `baton dockerfile apply`, or null when it never ran. */
  dockerfile: DockerfileRun | null;
  environmentConflicts: EnvironmentConflictSummary[];
  /** The startup runner's evidence record, or null with the reason it could not be read. */
  evidence: EvidenceRecord | null;
  evidenceProblem: string | null;
  checks: RequiredCheck[];
  /** Agent instruction files in the checkout (AGENTS.md and the like), relative to it; they require checks. */
  agentInstructions: string[];
  /** The egress proxy's refusals for this sandbox; null with the reason when they could not be read. */
  proxyRefusals?: ProxyRefusalWire[] | null;
  proxyRefusalsProblem?: string | null;
}

export interface Disclosure {
  repository: string;
  draft: boolean;
  /** Why the pull request must stay a draft; empty when it need not. */
  draftReasons: string[];
  markdown: string;
}
