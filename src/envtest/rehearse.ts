// `baton env rehearse <owner/name>` (in the box, started by `baton env test`): the agent's four start-up steps in
// one process, where four `baton` start-ups cost `env test` most of its time in the box. Each step is the same
// call its own command makes (activate, dockerfile apply, the runner at the path activation installed it,
// disclose), in the same order with the same stops: a failed activation or Dockerfile ends the rehearsal, a failed
// startup is still disclosed. Returns nothing: each step is reported through `report` as it starts and ends.
import { execFile } from "node:child_process";
import { activateRepository } from "../activation/activate.js";
import { discloseRepository } from "../disclosure/command.js";
import { runDockerfileCommand } from "../dockerfile/command.js";
import type { Log } from "../log-level.js";
import {
  lastLine,
  type RehearsalLine,
  type RehearsalOutcome,
  type RehearsalStepName,
} from "./rehearsal-wire.js";

export interface RehearsalInput {
  repository: string;
  /** The time limit of each step (the activation's wait, each Dockerfile step, the startup runner). */
  timeoutSeconds: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  log?: Log;
  report: (line: RehearsalLine) => void;
  /** Resolves when the host is ready for the disclosure (it has flushed the proxy's refusals). */
  readyToDisclose: () => Promise<void>;
}

const RUNNER_OUTPUT_BYTES = 16 * 1024 * 1024;

export async function rehearseStartup(input: RehearsalInput): Promise<void> {
  const step = async (
    name: RehearsalStepName,
    work: () => Promise<Omit<RehearsalOutcome, "step" | "durationMs">>,
  ): Promise<boolean> => {
    input.report({ started: name });
    const started = performance.now();
    let outcome: Omit<RehearsalOutcome, "step" | "durationMs">;
    try {
      outcome = await work();
    } catch (error) {
      outcome = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    input.report({ step: name, durationMs: Math.round(performance.now() - started), ...outcome });
    return outcome.ok;
  };

  let runPath: string | null = null;
  const activated = await step("activate", async () => {
    const outcome = await activateRepository({
      repository: input.repository,
      wait: true,
      checkout: undefined,
      deadline: Date.now() + input.timeoutSeconds * 1000,
      env: input.env,
      cwd: input.cwd,
      ...(input.log ? { log: input.log } : {}),
    });
    if (outcome.kind !== "activated") {
      const reason = outcome.operation.error
        ? `${outcome.operation.error.reason} (${outcome.operation.error.code})`
        : "the service gave no reason";
      return { ok: false, detail: `the activation of ${input.repository} failed: ${reason}` };
    }
    const runner = outcome.completed.files.runner;
    runPath = runner?.installed ? runner.path : null;
    return { ok: true, output: { ...outcome.operation, local: outcome.completed.files } };
  });
  if (!activated) return;

  const applied = await step("dockerfile", async () => {
    const outcome = await runDockerfileCommand({
      mode: "apply",
      repository: input.repository,
      buildArgs: [],
      stepTimeoutSeconds: input.timeoutSeconds,
      env: input.env,
      cwd: input.cwd,
    });
    if (outcome.mode !== "apply" || outcome.result.status !== "failed") return { ok: true };
    const failed = outcome.result.failed;
    return {
      ok: false,
      detail: failed ? `step ${failed.index} (line ${failed.line}) ${failed.status}` : "a step failed",
    };
  });
  if (!applied) return;

  await step("startup", async () => {
    if (!runPath) return { ok: false, detail: "activation installed no startup runner" };
    const ran = await runStartupRunner(runPath, input);
    let evidence: Record<string, unknown>;
    try {
      evidence = JSON.parse(ran.stdout) as Record<string, unknown>;
    } catch {
      return {
        ok: false,
        detail: `the runner printed no evidence (exit ${ran.exitCode}): ${lastLine(ran.stderr)}`,
      };
    }
    const outcome = String(evidence.outcome);
    return {
      ok: outcome === "succeeded",
      ...(outcome === "succeeded" ? {} : { detail: `outcome ${outcome}` }),
      output: evidence,
    };
  });

  await input.readyToDisclose();
  await step("disclose", async () => {
    const disclosure = await discloseRepository({ repository: input.repository, checks: [], env: input.env });
    return { ok: true, output: disclosure };
  });
}

/** The runner as an agent runs it: a new bash (which reads ~/.baton/environment.sh by itself) that execs it. */
function runStartupRunner(
  runPath: string,
  input: RehearsalInput,
): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return new Promise((settle) => {
    execFile(
      "bash",
      ["-c", 'exec node "$1" --repo "$2"', "baton-env-test", runPath, input.repository],
      {
        cwd: input.cwd,
        env: input.env,
        timeout: input.timeoutSeconds * 1000,
        killSignal: "SIGKILL",
        maxBuffer: RUNNER_OUTPUT_BYTES,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const code = error && typeof error.code === "number" ? error.code : error ? 124 : 0;
        settle({ exitCode: code, stdout, stderr });
      },
    );
  });
}
