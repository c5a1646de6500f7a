// The startup evidence record's shape, without dependencies: the runner bundle uses it as is, and schema.ts
// holds the matching zod schema (a compile-time check keeps the two equal).

export const EVIDENCE_SCHEMA_VERSION = 1;
/** Default bound on the record's JSON (UTF-8 bytes). */
export const DEFAULT_EVIDENCE_LIMIT_BYTES = 32 * 1024;

export const EVIDENCE_OUTCOMES = [
  "succeeded",
  "failed",
  "not_ready",
  "timed_out",
  "interrupted",
  "runner_error",
] as const;
export type EvidenceOutcome = (typeof EVIDENCE_OUTCOMES)[number];

export const READINESS_STATUSES = ["ready", "not_ready", "unknown"] as const;
export type ReadinessStatus = (typeof READINESS_STATUSES)[number];

export interface ReadinessCheckResult {
  kind: "http" | "tcp" | "command";
  /** The URL, host:port or command, sanitised. */
  target: string;
  deadlineSeconds: number;
  ok: boolean;
  durationMs: number;
  /** Last status, error or exit code seen, sanitised. */
  detail: string;
}

export interface EvidenceReadiness {
  status: ReadinessStatus;
  /** Said plainly: why the status is what it is. */
  note: string;
  checks: ReadinessCheckResult[];
}

export interface EvidenceOutput {
  /** Every byte and line of combined stdout and stderr, counted before sanitising. */
  bytes: number;
  lines: number;
  /** True when head and tail together do not hold the whole (sanitised) output. */
  truncated: boolean;
  head: string;
  tail: string;
  /** True when a background process kept the output open after the script exited and reading stopped. */
  stoppedReadingAfterExit: boolean;
}

export interface EvidenceRecord {
  schemaVersion: typeof EVIDENCE_SCHEMA_VERSION;
  repository: string | null;
  handoffVersionId: string | null;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  outcome: EvidenceOutcome;
  /** The script's exit code; null when it was killed by a signal or never ran. */
  exitCode: number | null;
  signal: string | null;
  /** The runner's own exit status (the script's for failures; see README "Startup runner and evidence"). */
  runnerExitStatus: number;
  timeoutSeconds: number;
  readiness: EvidenceReadiness;
  output: EvidenceOutput;
  /** What the sanitiser removed, counted by kind or secret name; never a value. */
  redactions: Record<string, number>;
  runtime: { node: string; shell: string | null; platform: string };
  /** The runner's own error, sanitised; null when it had none. */
  runnerError: string | null;
  /** Set when bounding had to shorten something beyond the output head and tail. */
  trimmed: boolean;
}

/** Exit statuses of the runner for outcomes that have no script exit code of their own. */
export const RUNNER_EXIT = {
  timedOut: 124,
  runnerError: 125,
  readinessFailed: 1,
  interruptedBase: 128,
} as const;
