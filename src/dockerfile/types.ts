// The plan the resolver produces and the records apply writes. Both are part of the `--json` contract.
import * as z from "zod";

export const STEP_ACTIONS = ["run", "env", "arg", "workdir", "shell", "skipped"] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

export interface RunSpec {
  /** The program and its arguments; for shell form the SHELL in force followed by the command text. */
  argv: string[];
  form: "shell" | "exec" | "heredoc-script";
  /** A heredoc body that starts with `#!`: written to a file and executed, as BuildKit does. */
  script?: { name: string; content: string };
  /** The WORKDIR as the Dockerfile resolves it; `null` when no WORKDIR was set (the checkout root is used). */
  workdir: string | null;
  /** ENV and ARG values in force for this step, laid over the sandbox's own environment at apply time. */
  env: Record<string, string>;
}

export interface PlanStep {
  /** 1-based position in the plan. */
  index: number;
  stage: string;
  line: number;
  endLine: number;
  /** The instruction as written (first 200 characters, continuation lines joined). */
  instruction: string;
  action: StepAction;
  /** Why a step is skipped, or what about it differs from a build. */
  notes: string[];
  run?: RunSpec;
  env?: { name: string; value: string }[];
  arg?: { name: string; value: string | null }[];
  workdir?: string;
  shell?: string[];
  /** sha256 over this step and every step before it: a changed earlier step invalidates later records. */
  digest: string;
}

export interface DockerfilePlan {
  target: string;
  stages: { name: string; base: string; fromStage: string | null }[];
  steps: PlanStep[];
  /** The target stage's resolved ENV (not ARG), in first-set order: what dockerfile-environment.sh gets. */
  environment: { name: string; value: string }[];
  unusedBuildArgs: string[];
}

export const STEP_STATUSES = [
  "succeeded",
  "failed",
  "timed_out",
  "not_run",
  "skipped",
  "resolved",
  "already_applied",
] as const;

export const StepRecordSchema = z.object({
  versionId: z.string(),
  digest: z.string(),
  index: z.number().int(),
  line: z.number().int(),
  instruction: z.string(),
  action: z.enum(STEP_ACTIONS),
  status: z.enum(STEP_STATUSES),
  notes: z.array(z.string()),
  startedAt: z.string().nullable(),
  durationMs: z.number().nullable(),
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** The last lines of combined stdout and stderr, bounded and sanitised. */
  outputTail: z.string(),
  redactions: z.number().int(),
});
export type StepRecord = z.infer<typeof StepRecordSchema>;
