// Short human output for `baton dockerfile plan|apply`. Callers sanitise every line before printing.
import type { ApplyResult } from "../../../dockerfile/apply.js";
import type { PersistResult } from "../../../dockerfile/persist.js";
import type { DockerfilePlan, PlanStep, StepRecord } from "../../../dockerfile/types.js";
import { countOf, formatDuration } from "../../../format/index.js";

function took(ms: number | null): string {
  return ms === null ? "" : ` in ${formatDuration(ms)}`;
}

function describeStep(step: PlanStep): string {
  switch (step.action) {
    case "run":
      return step.run!.form === "exec"
        ? "run (exec form, no shell)"
        : `run (${step.run!.form === "heredoc-script" ? "heredoc script" : step.run!.argv.slice(0, -1).join(" ")})`;
    case "env":
      return `env ${step.env!.map((e) => e.name).join(", ")}`;
    case "arg":
      return `arg ${step.arg!.map((a) => (a.value === null ? `${a.name} (unset)` : a.name)).join(", ")}`;
    case "workdir":
      return `workdir ${step.workdir}`;
    case "shell":
      return `shell ${JSON.stringify(step.shell)}`;
    default:
      return "skipped";
  }
}

export function renderPlan(
  header: { repository: string; dockerfile: string; target: string },
  plan: DockerfilePlan,
): string[] {
  const runs = plan.steps.filter((s) => s.action === "run").length;
  const lines = [
    `Plan for ${header.repository}: ${header.dockerfile}, target stage ${plan.target}, ${countOf(plan.steps.length, "step")} (${runs} RUN).`,
  ];
  for (const step of plan.steps) {
    lines.push(
      `  ${String(step.index).padStart(3)}  line ${String(step.line).padEnd(4)} ${step.instruction.split("\n")[0]}`,
    );
    lines.push(`       -> ${describeStep(step)}${step.notes.length > 0 ? `: ${step.notes.join("; ")}` : ""}`);
  }
  if (plan.unusedBuildArgs.length > 0)
    lines.push(`Build args no ARG uses: ${plan.unusedBuildArgs.join(", ")}`);
  lines.push(`Next: baton dockerfile apply ${header.repository}`);
  return lines;
}

/** "failed with exit 2", "was killed by SIGKILL", "timed out" or "could not start". */
export function describeFailure(record: StepRecord): string {
  if (record.status === "timed_out") return "timed out";
  if (record.exitCode !== null) return `failed with exit ${record.exitCode}`;
  if (record.signal !== null) return `was killed by ${record.signal}`;
  return "could not start";
}

export function renderStepLine(record: StepRecord, step: PlanStep, total: number): string {
  const head = `[${record.index}/${total}] line ${record.line} ${record.instruction.split("\n")[0]!.slice(0, 80)}`;
  switch (record.status) {
    case "succeeded":
      return `${head}: succeeded${took(record.durationMs)}`;
    case "failed":
      return `${head}: FAILED: ${describeFailure(record)}${took(record.durationMs)}`;
    case "timed_out":
      return `${head}: TIMED OUT${took(record.durationMs)}`;
    case "already_applied":
      return `${head}: already applied for this version, not run again`;
    case "not_run":
      return `${head}: not run (an earlier step failed)`;
    case "skipped":
      return `${head}: skipped: ${record.notes.join("; ")}`;
    default:
      return `${head}: ${describeStep(step)}`;
  }
}

export function renderApplySummary(
  repository: string,
  result: ApplyResult,
  environment: PersistResult | null,
  unusedBuildArgs: readonly string[],
): string[] {
  const count = (status: StepRecord["status"]) => result.records.filter((r) => r.status === status).length;
  const lines: string[] = [];
  if (result.failed) {
    const f = result.failed;
    lines.push(
      `Step ${f.index} (line ${f.line}, ${f.instruction.split("\n")[0]!.slice(0, 80)}) ${describeFailure(f)}; ${countOf(count("not_run"), "later RUN step")} not run.`,
    );
    if (f.outputTail)
      lines.push(
        "Last output:",
        ...f.outputTail
          .split("\n")
          .slice(-10)
          .map((l) => `  ${l}`),
      );
    lines.push(
      `ENV was not persisted. Fix the step, then run: baton dockerfile apply ${repository} (succeeded steps are not rerun)`,
    );
    return lines;
  }
  lines.push(
    result.status === "already_applied"
      ? `The Dockerfile of ${repository} is already applied for this version; nothing was run.`
      : `Applied the Dockerfile of ${repository}: ${countOf(count("succeeded"), "RUN step")} succeeded, ${count("already_applied")} already applied, ${count("skipped")} skipped.`,
  );
  if (environment) {
    lines.push(`ENV: ${countOf(environment.variables.length, "variable")} exported in ${environment.path}`);
    for (const v of environment.variables.filter((x) => x.assigned !== x.name)) {
      lines.push(`  ${v.name} conflicts with another repository's value: exported as ${v.assigned}`);
    }
    if (environment.notExported.length > 0) {
      lines.push(`  not valid shell names, not exported: ${environment.notExported.join(", ")}`);
    }
  }
  if (unusedBuildArgs.length > 0) lines.push(`Build args no ARG uses: ${unusedBuildArgs.join(", ")}`);
  lines.push('Next: . "$HOME/.baton/environment.sh"');
  return lines;
}
