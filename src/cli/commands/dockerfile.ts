// `baton dockerfile plan|apply <owner/name>`: declares flags only; the engine loads when the command runs.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

interface DockerfileFlags {
  file?: string;
  checkout?: string;
  target?: string;
  buildArg: string[];
  stepTimeout?: string;
  json?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function declare(command: Command): Command {
  return command
    .argument("<owner/name>", "the repository whose Dockerfile to use")
    .option("--file <path>", "the Dockerfile (default: dockerfilePath from the saved handoff)")
    .option("--checkout <dir>", "the checkout root (default: from the saved handoff)")
    .option("--target <stage>", "the build stage to apply (default: the last stage)")
    .option("--build-arg <NAME=value>", "a build argument; repeat for more", collect, [])
    .option("--json", "print the machine-readable document (see README)");
}

export function registerDockerfileCommands(program: Command, context: CommandContext): void {
  const group = program
    .command("dockerfile")
    .description("plan or apply a repository's Dockerfile RUN/ENV inside this sandbox, as BuildKit would");
  const run = (mode: "plan" | "apply") =>
    context.action(async (repository: string, flags: DockerfileFlags) => {
      const { runDockerfileCommand } = await import("../../dockerfile/command.js");
      return runDockerfileCommand({
        mode,
        repository,
        file: flags.file,
        checkout: flags.checkout,
        target: flags.target,
        buildArgs: flags.buildArg,
        stepTimeoutSeconds: flags.stepTimeout === undefined ? undefined : Number(flags.stepTimeout),
        json: flags.json === true,
        io: context.io,
      });
    });
  declare(group.command("plan").description("print the steps without running anything")).action(run("plan"));
  declare(group.command("apply").description("run the RUN steps in order, persist ENV, record every step"))
    .option("--step-timeout <seconds>", "stop a RUN step after this long (default 1800)")
    .addHelpText(
      "after",
      "\nExit 0 when every runnable step succeeded; 1 on a failed step (named) or bad input.",
    )
    .action(run("apply"));
}
