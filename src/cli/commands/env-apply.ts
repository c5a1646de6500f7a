// `baton env apply --overlay <file|->`: declares flags only; the implementation loads when the command runs.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerEnvApply(env: Command, context: CommandContext): void {
  env
    .command("apply")
    .description("write ~/.baton/environment.sh from an overlay document and print the name mapping")
    .requiredOption("--overlay <file|->", "the overlay document (JSON); - reads standard input")
    .option("--json", "print {revision, path, variables: [{repository, name, assigned, source}]}")
    .addHelpText("after", "\nPrints original and assigned variable names, never values.")
    .action(
      context.action(async (flags: { overlay: string; json?: boolean }) => {
        const { runEnvApply } = await import("../../activation/env-apply.js");
        return runEnvApply({ overlay: flags.overlay, json: flags.json === true, io: context.io });
      }),
    );
}
