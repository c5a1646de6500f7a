// What `baton dockerfile plan` and `apply` share: the flags and the run, with every printed string sanitised.
import "../zod-jitless.js";
import type { Command } from "commander";
import {
  type DockerfileApplyDocument,
  type DockerfileOutcome,
  runDockerfileCommand,
  sanitiseDeep,
} from "../../../dockerfile/command.js";
import type { CommandContext, CommandResult } from "../../context.js";
import { collect } from "../../flags.js";
import { writeJson, writeLine, writeLines } from "../../io.js";
import { renderApplySummary, renderPlan, renderStepLine } from "./render.js";

interface DockerfileFlags {
  file?: string;
  checkout?: string;
  target?: string;
  buildArg: string[];
  stepTimeout?: string;
  json?: boolean;
}

export function declareDockerfileCommand(
  command: Command,
  { io, action }: CommandContext,
  mode: "plan" | "apply",
): Command {
  return command
    .argument("<owner/name>", "the repository whose Dockerfile to use")
    .option("--file <path>", "the Dockerfile (default: dockerfilePath from the saved handoff)")
    .option("--checkout <dir>", "the checkout root (default: from the saved handoff)")
    .option("--target <stage>", "the build stage to apply (default: the last stage)")
    .option("--build-arg <NAME=value>", "a build argument; repeat for more", collect, [])
    .option("--json", "print the machine-readable document (see docs/agents.md)")
    .action(
      action(async (repository: string, flags: DockerfileFlags): Promise<CommandResult> => {
        const outcome = await runDockerfileCommand({
          mode,
          repository,
          file: flags.file,
          checkout: flags.checkout,
          target: flags.target,
          buildArgs: flags.buildArg,
          stepTimeoutSeconds: flags.stepTimeout === undefined ? undefined : Number(flags.stepTimeout),
          env: io.env,
          cwd: io.cwd,
          onStep: (record, step, total) => writeLine(io.stderr, renderStepLine(record, step, total)),
        });
        printOutcome(outcome, flags.json === true, io);
        return outcome.mode === "apply" && outcome.result.status === "failed"
          ? { failed: "step_failed" }
          : undefined;
      }),
    );
}

function printOutcome(outcome: DockerfileOutcome, json: boolean, io: CommandContext["io"]): void {
  const { header, sanitiser } = outcome;
  const clean = (lines: string[]) => lines.map((line) => sanitiser.sanitise(line).text);
  if (outcome.mode === "plan") {
    if (json) writeJson(io.stdout, sanitiseDeep({ ...header, plan: outcome.plan }, sanitiser));
    else writeLines(io.stdout, clean(renderPlan(header, outcome.plan)));
    return;
  }
  if (outcome.mode === "reported_applied") {
    if (json)
      writeJson(io.stdout, {
        ...header,
        status: "reported_applied",
        steps: [],
        environment: null,
      } satisfies DockerfileApplyDocument);
    else
      writeLines(io.stdout, [
        `The handoff for ${header.repository} reports its Dockerfile applied; nothing was run.`,
        `To apply it anyway: baton dockerfile apply ${header.repository} --file <path>`,
      ]);
    return;
  }
  const { result, environment, unusedBuildArgs } = outcome;
  if (json) {
    const document = {
      ...header,
      status: result.status,
      failedStep: result.failed,
      steps: result.records,
      environment,
      unusedBuildArgs,
    } satisfies DockerfileApplyDocument;
    writeJson(io.stdout, sanitiseDeep(document, sanitiser));
  } else {
    writeLines(io.stdout, clean(renderApplySummary(header.repository, result, environment, unusedBuildArgs)));
  }
}
