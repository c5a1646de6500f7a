// `baton env apply --overlay <file|->`: flags and what it prints (names, never values).
import "../zod-jitless.js";
import type { Command } from "commander";
import { applyOverlayDocument } from "../../../activation/env-apply.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLines } from "../../io.js";
import { describeCount, renderNameMapping } from "./render-mapping.js";

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .requiredOption("--overlay <file|->", "the overlay document (JSON); - reads standard input")
    .option("--json", "print {revision, path, variables: [{repository, name, assigned, source}]}")
    .addHelpText("after", "\nPrints original and assigned variable names, never values.")
    .action(
      action(async (flags: { overlay: string; json?: boolean }) => {
        const applied = await applyOverlayDocument({
          overlay: flags.overlay,
          stdin: io.stdin,
          env: io.env,
          cwd: io.cwd,
          log,
        });
        if (flags.json) {
          writeJson(io.stdout, {
            revision: applied.revision,
            path: applied.path,
            variables: applied.variables,
          });
          return undefined;
        }
        writeLines(io.stdout, [
          `Wrote ${applied.path} (${describeCount(applied.revision, applied.variables.length)}).`,
          ...renderNameMapping(applied.variables),
          'Load it in a new shell with: . "$HOME/.baton/environment.sh"',
        ]);
        return undefined;
      }),
    );
}
