// `baton disclose <owner/name>`: the pull-request disclosure (Markdown) for an activated repository.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerDisclose(program: Command, context: CommandContext): void {
  program
    .command("disclose")
    .description(
      "print the pull-request disclosure: delivered version, Dockerfile steps, startup evidence, checks",
    )
    .argument("<owner/name>", "the activated repository")
    .option(
      "--check <name=result[:note]>",
      "a required check and its result (passed, failed or not_run); repeatable",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--json", "print {repository, draft, draftReasons, markdown}")
    .action(
      context.action(async (repository: string, flags: { check: string[]; json?: boolean }) => {
        const { discloseCommand } = await import("../../disclosure/command.js");
        return discloseCommand({
          repository,
          checks: flags.check,
          json: flags.json === true,
          io: context.io,
        });
      }),
    );
}
