// `baton env show`: declares flags only; the implementation loads when the command runs.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerEnvShow(env: Command, context: CommandContext): void {
  env
    .command("show")
    .description("print the current environment file's overlay revision and variable names (never values)")
    .option("--json", "print {revision, path, variables: [{repository, name, assigned, source}]}")
    .action(
      context.action(async (flags: { json?: boolean }) => {
        const { runEnvShow } = await import("../../activation/env-show.js");
        return runEnvShow({ json: flags.json === true, io: context.io });
      }),
    );
}
