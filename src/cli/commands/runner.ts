// `baton runner path`: where the packaged startup runner bundle is, for installing it at a handoff's runPath.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerRunnerCommands(program: Command, context: CommandContext): Command {
  const runner = program.command("runner").description("the startup runner bundle");
  runner
    .command("path")
    .description("print the absolute path of the packaged startup runner (dist/runner/baton-runner.cjs)")
    .option("--json", 'print {"path": "..."}')
    .action(
      context.action(async (flags: { json?: boolean }) => {
        const { printRunnerPath } = await import("../../evidence/runner-path.js");
        return printRunnerPath({ json: flags.json === true, io: context.io });
      }),
    );
  return runner;
}
