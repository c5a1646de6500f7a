// The startup runner: `node <runPath> [--handoff <file>] [--repo <owner/name>]`. Runs the handoff's startup
// script under bash with a time limit, checks readiness, and writes one bounded, sanitised JSON evidence
// document to stdout and to evidencePath in every case: success, failure, time-out, SIGINT/SIGTERM, own error.

import { withoutOperatorCredentials } from "../../src/credentials/operator-credentials.js";
import { boundEvidence } from "../../src/evidence/bound-evidence.js";
import {
  DEFAULT_EVIDENCE_LIMIT_BYTES,
  EVIDENCE_SCHEMA_VERSION,
  type EvidenceOutcome,
  type EvidenceOutput,
  type EvidenceReadiness,
  type EvidenceRecord,
  RUNNER_EXIT,
} from "../../src/evidence/record.js";
import { createSanitiser, type Sanitiser } from "../../src/evidence/sanitiser.js";
import { assertWritableUnder, writeFileAtomicSync } from "../../src/safefs/write-atomic.js";
import { HELP, type RunnerArgs, readRunnerCommand, USAGE_LINE } from "./args.js";
import { OutputCapture } from "./capture.js";
import {
  batonHome,
  fallbackEvidencePath,
  locateHandoff,
  type RunnerHandoff,
  readHandoff,
} from "./handoff.js";
import { checkReadiness, readinessNotChecked } from "./readiness.js";
import { collectKnownSecrets } from "./secrets.js";
import { findBash, readBashVersion } from "./shell-version.js";
import { type ScriptResult, type Supervision, superviseScript } from "./supervise.js";
import { writeAll } from "./write-evidence.js";

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

const env = process.env;
/** What the repository's script and readiness commands see: never an operator's credential from the shell. */
const scriptEnv = withoutOperatorCredentials(env);
const startedAt = new Date();
let knownSanitiser: Sanitiser | undefined;
/**
 * Built on first use (output, an error or a readiness answer to sanitise), so a quiet run never builds the
 * index. The known values come from the environment file; when it cannot be read, patterns still apply.
 */
function getSanitiser(): Sanitiser {
  if (knownSanitiser === undefined) {
    let secrets: ReturnType<typeof collectKnownSecrets> = [];
    try {
      secrets = collectKnownSecrets(env);
    } catch {
      // An unreadable environment file is reported where the run reads it; redact by pattern meanwhile.
    }
    knownSanitiser = createSanitiser({ secrets });
  }
  return knownSanitiser;
}
const sanitiser = { sanitise: (text: string) => getSanitiser().sanitise(text) };
let handoff: RunnerHandoff | undefined;
let repository: string | undefined;
let capture: OutputCapture | undefined;
let supervision: Supervision | undefined;
let interruptedBy: NodeJS.Signals | undefined;
let finishedScript: ScriptResult | undefined;
let finished = false;

/** The version of the bash on PATH (the one the script ran under), read from its binary: no second bash. */
function shellVersion(): string | null {
  const bash = findBash(env.PATH);
  return bash === null ? null : readBashVersion(bash);
}

function statusFor(outcome: EvidenceOutcome, script: ScriptResult | undefined): number {
  if (outcome === "succeeded") return 0;
  if (outcome === "not_ready") return RUNNER_EXIT.readinessFailed;
  if (outcome === "timed_out") return RUNNER_EXIT.timedOut;
  if (outcome === "runner_error") return RUNNER_EXIT.runnerError;
  if (outcome === "interrupted")
    return RUNNER_EXIT.interruptedBase + (SIGNAL_NUMBERS[interruptedBy ?? "SIGTERM"] ?? 15);
  if (script?.exitCode !== null && script?.exitCode !== undefined && script.exitCode !== 0)
    return script.exitCode;
  if (script?.signal) return RUNNER_EXIT.interruptedBase + (SIGNAL_NUMBERS[script.signal] ?? 15);
  return RUNNER_EXIT.readinessFailed;
}

const emptyOutput = (): EvidenceOutput => ({
  bytes: 0,
  lines: 0,
  truncated: false,
  head: "",
  tail: "",
  stoppedReadingAfterExit: false,
});

/** Builds, bounds and writes the evidence, then exits with the runner's status. Runs once. */
function finish(
  outcome: EvidenceOutcome,
  details: { script?: ScriptResult; readiness?: EvidenceReadiness; error?: unknown },
): never {
  if (finished) process.exit(RUNNER_EXIT.runnerError);
  finished = true;
  if (details.script === undefined) {
    try {
      supervision?.stopNow(); // the script may still run: the runner is leaving without waiting for it
    } catch {
      // nothing more can be done about the group
    }
  }
  const endedAt = new Date();
  let output = emptyOutput();
  let redactions: Record<string, number> = {};
  try {
    if (capture !== undefined) {
      output = capture.finish(details.script?.stoppedReadingAfterExit ?? false);
      redactions = { ...capture.redactions };
    }
  } catch {
    // Output is lost rather than the evidence.
  }
  const errorText =
    details.error === undefined ? null : sanitiser.sanitise(describeError(details.error)).text;
  const status = statusFor(outcome, details.script);
  const record: EvidenceRecord = {
    schemaVersion: EVIDENCE_SCHEMA_VERSION,
    repository: handoff?.repository ?? repository ?? null,
    handoffVersionId: handoff?.versionId ?? null,
    startedAt: startedAt.toISOString(),
    endedAt: endedAt.toISOString(),
    durationMs: endedAt.getTime() - startedAt.getTime(),
    outcome,
    exitCode: details.script?.exitCode ?? null,
    signal: details.script?.signal ?? null,
    runnerExitStatus: status,
    timeoutSeconds: handoff?.timeoutSeconds ?? 900,
    readiness: details.readiness ?? readinessNotChecked(`the run ended with ${outcome}`),
    output,
    redactions,
    runtime: { node: process.version, shell: shellVersion(), platform: process.platform },
    runnerError: errorText,
    trimmed: false,
  };
  // The document and its newline together stay within the default bound.
  const json = JSON.stringify(boundEvidence(record, DEFAULT_EVIDENCE_LIMIT_BYTES - 1));
  const evidencePath = handoff?.evidencePath ?? fallbackEvidencePath(env, repository);
  let where = `evidence in ${evidencePath}`;
  try {
    writeFileAtomicSync(batonHome(env), evidencePath, `${json}\n`, { mode: 0o600 });
  } catch (error) {
    where = `evidence on stdout only: could not write ${evidencePath}: ${errorMessage(error)}`;
  }
  try {
    writeAll(1, `${json}\n`);
  } catch {
    // stdout is gone; the file still holds the evidence
  }
  // Why the runner could not run the script goes to stderr too: a person reads that line, not the JSON.
  const why = details.error === undefined ? "" : `: ${sanitiser.sanitise(errorMessage(details.error)).text}`;
  try {
    writeAll(2, `baton-runner: ${outcome}, exit status ${status}${why}; ${where}\n`);
  } catch {
    // nothing left to tell
  }
  process.exit(status);
}

/** The message alone, for stderr; the evidence keeps the error's name too (describeError). */
function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}

function describeError(error: unknown): string {
  if (error instanceof Error)
    return `${error.name === "Error" ? "" : `${error.name}: `}${error.message}`.slice(0, 2000);
  return String(error).slice(0, 2000);
}

function onSignal(signal: NodeJS.Signals): void {
  if (finishedScript !== undefined) {
    // Readiness checks were running: the script is done, so stop now.
    interruptedBy ??= signal;
    finish("interrupted", {
      script: finishedScript,
      readiness: readinessNotChecked("the runner was interrupted"),
    });
  }
  if (interruptedBy !== undefined || supervision === undefined) {
    interruptedBy ??= signal;
    finish("interrupted", {});
  }
  interruptedBy = signal;
  supervision.stop(); // run() finishes once the group has ended
}

async function run(args: RunnerArgs): Promise<void> {
  repository = args.repo;
  handoff = readHandoff(locateHandoff(args, env), env, args);
  // Evidence must be writable before the script runs: a link under ~/.baton stops the run here.
  assertWritableUnder(batonHome(env), handoff.evidencePath);
  // Read now, so an unreadable environment file stops the run before the script does anything.
  const secrets = collectKnownSecrets(env);
  capture = new OutputCapture(() => {
    knownSanitiser ??= createSanitiser({ secrets });
    return knownSanitiser.stream();
  });
  writeAll(
    2,
    `baton-runner: running ${handoff.startupScriptPath} with bash (time limit ${handoff.timeoutSeconds} s)\n`,
  );
  supervision = superviseScript({
    script: handoff.startupScriptPath,
    cwd: handoff.checkoutPath,
    env: scriptEnv,
    timeoutMs: handoff.timeoutSeconds * 1000,
    capture,
  });
  const script = await supervision.done;
  finishedScript = script;
  if (script.spawnError !== undefined) finish("runner_error", { script, error: script.spawnError });
  if (interruptedBy !== undefined) finish("interrupted", { script });
  if (script.timedOut) finish("timed_out", { script });
  if (script.exitCode !== 0)
    finish("failed", { script, readiness: readinessNotChecked("the startup script failed") });
  const readiness = await checkReadiness(handoff.readiness, {
    cwd: handoff.checkoutPath,
    env: scriptEnv,
    sanitise: (text) => sanitiser.sanitise(text).text,
    report: (line) => writeAll(2, `baton-runner: ${line}\n`),
  });
  if (interruptedBy !== undefined) finish("interrupted", { script, readiness });
  finish(readiness.status === "not_ready" ? "not_ready" : "succeeded", { script, readiness });
}

// A mistyped command line is not a run: it gets help, or what to fix, and writes no evidence.
const command = readRunnerCommand(process.argv.slice(2));
if (command.kind === "help") {
  writeAll(1, HELP);
  process.exit(0);
}
if (command.kind === "usage_error") {
  writeAll(2, `baton-runner: ${command.message}\n${USAGE_LINE}\n`);
  process.exit(RUNNER_EXIT.runnerError);
}
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);
process.on("SIGHUP", onSignal);
process.on("uncaughtException", (error) => finish("runner_error", { error }));
process.on("unhandledRejection", (error) => finish("runner_error", { error }));
run(command.args).catch((error: unknown) => finish("runner_error", { error }));
