// Applies a plan inside the sandbox: RUN steps in order, stopping at the first failure as a build does, with
// a record per step saved after each one so a re-run resumes and an applied Dockerfile is not run twice.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxPaths } from "../config/sandbox.js";
import { writeFileAtomicSync } from "../safefs/index.js";
import { runStepProcess } from "./run-step.js";
import type { OutputSanitiser } from "./sanitise.js";
import { stepBaseEnvironment } from "./secrets.js";
import { appendRecord, heredocScriptsDir, readStepState, succeededKeys, writeStepState } from "./state.js";
import type { DockerfilePlan, PlanStep, StepRecord } from "./types.js";

export interface ApplyOptions {
  plan: DockerfilePlan;
  repository: string;
  versionId: string;
  checkoutPath: string;
  paths: SandboxPaths;
  /** The sandbox's environment; RUN steps start from it minus the transport credentials. */
  env: Readonly<Record<string, string | undefined>>;
  stepTimeoutMs: number;
  sanitiser: OutputSanitiser;
  /** Called after each step with its record (the CLI streams a line per step). */
  onStep?: (record: StepRecord, step: PlanStep) => void;
  now?: () => Date;
}

export interface ApplyResult {
  /** `applied`: every runnable step succeeded now or earlier; `already_applied`: nothing needed running. */
  status: "applied" | "already_applied" | "failed";
  records: StepRecord[];
  failed: StepRecord | null;
}

function baseRecord(options: ApplyOptions, step: PlanStep): StepRecord {
  return {
    versionId: options.versionId,
    digest: step.digest,
    index: step.index,
    line: step.line,
    instruction: options.sanitiser.sanitise(step.instruction).text,
    action: step.action,
    status: "resolved",
    notes: step.notes.map((note) => options.sanitiser.sanitise(note).text),
    startedAt: null,
    durationMs: null,
    exitCode: null,
    signal: null,
    outputTail: "",
    redactions: 0,
  };
}

/** Where a RUN step runs: its WORKDIR when that exists or can be created, otherwise the checkout root. */
async function chooseWorkdir(step: PlanStep, checkoutPath: string): Promise<{ cwd: string; note?: string }> {
  const workdir = step.run!.workdir;
  if (workdir === null)
    return { cwd: checkoutPath, note: "no WORKDIR is set: the step runs in the checkout root" };
  try {
    await mkdir(workdir, { recursive: true });
    return { cwd: workdir };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return {
      cwd: checkoutPath,
      note: `WORKDIR ${workdir} could not be created (${code}): ran in the checkout root`,
    };
  }
}

async function prepareArgv(options: ApplyOptions, step: PlanStep): Promise<string[]> {
  const run = step.run!;
  if (run.form !== "heredoc-script" || !run.script) return run.argv;
  const dir = join(heredocScriptsDir(options.paths), step.digest.slice(0, 16));
  const name = run.script.name.replace(/[^A-Za-z0-9._-]/g, "_");
  const file = join(dir, name === "" || /^\.+$/.test(name) ? "script" : name);
  writeFileAtomicSync(options.paths.batonDir, file, run.script.content, { mode: 0o700 });
  return [file];
}

async function runOne(options: ApplyOptions, step: PlanStep, record: StepRecord): Promise<StepRecord> {
  const { cwd, note } = await chooseWorkdir(step, options.checkoutPath);
  const env = { ...stepBaseEnvironment(options.env), ...step.run!.env };
  const startedAt = (options.now ?? (() => new Date()))().toISOString();
  const outcome = await runStepProcess(
    { argv: await prepareArgv(options, step), cwd, env, timeoutMs: options.stepTimeoutMs },
    options.sanitiser,
  );
  const notes = note ? [...record.notes, note] : [...record.notes];
  if (outcome.timedOut)
    notes.push(`stopped after the ${Math.round(options.stepTimeoutMs / 1000)} s step timeout`);
  if (outcome.spawnError) notes.push(outcome.spawnError);
  const ok = outcome.exitCode === 0 && !outcome.timedOut;
  return {
    ...record,
    status: ok ? "succeeded" : outcome.timedOut ? "timed_out" : "failed",
    notes,
    startedAt,
    durationMs: outcome.durationMs,
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    outputTail: outcome.outputTail,
    redactions: outcome.redactions,
  };
}

export async function applyPlan(options: ApplyOptions): Promise<ApplyResult> {
  let state = await readStepState(options.paths, options.repository);
  const done = succeededKeys(state);
  const records: StepRecord[] = [];
  let failed: StepRecord | null = null;
  let ranAny = false;
  for (const step of options.plan.steps) {
    let record = baseRecord(options, step);
    if (failed) record = { ...record, status: step.action === "run" ? "not_run" : record.status };
    else if (step.action === "skipped") record = { ...record, status: "skipped" };
    else if (step.action === "run") {
      if (done.has(`${options.versionId}:${step.digest}`)) record = { ...record, status: "already_applied" };
      else {
        ranAny = true;
        record = await runOne(options, step, record);
        state = appendRecord(state, record);
        await writeStepState(options.paths, state);
        if (record.status !== "succeeded") failed = record;
      }
    }
    records.push(record);
    options.onStep?.(record, step);
  }
  const hasRunSteps = options.plan.steps.some((step) => step.action === "run");
  const status = failed ? "failed" : hasRunSteps && !ranAny ? "already_applied" : "applied";
  const finishedAt = (options.now ?? (() => new Date()))().toISOString();
  await writeStepState(options.paths, {
    ...state,
    lastRun: { versionId: options.versionId, finishedAt, status, steps: records },
  });
  return { status, records, failed };
}
