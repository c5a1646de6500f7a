// `baton disclose <owner/name>`: the pull-request disclosure (Markdown) for an activated repository.
import "./zod-jitless.js";
import type { Command } from "commander";
import { discloseRepository } from "../../disclosure/command.js";
import type { CommandContext } from "../context.js";
import { collect } from "../flags.js";
import { writeJson } from "../io.js";

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .argument("<owner/name>", "the activated repository")
    .option(
      "--check <name=result[:note]>",
      "a required check and its result (passed, failed or not_run); repeatable",
      collect,
      [] as string[],
    )
    .option("--json", "print {repository, draft, draftReasons, markdown}")
    .action(
      action(async (repository: string, flags: { check: string[]; json?: boolean }) => {
        const disclosure = await discloseRepository({ repository, checks: flags.check, env: io.env });
        if (flags.json) writeJson(io.stdout, disclosure);
        else if (!io.stdout.destroyed) io.stdout.write(disclosure.markdown);
        return undefined;
      }),
    );
}
