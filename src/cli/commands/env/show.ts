// `baton env show`: the environment file's revision and name mapping, never values.
import type { Command } from "commander";
import { readEnvironmentManifest } from "../../../activation/env-show.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLines } from "../../io.js";
import { describeCount, renderNameMapping } from "./render-mapping.js";

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .option("--json", "print {revision, path, variables: [{repository, name, assigned, source}]}")
    .action(
      action(async (flags: { json?: boolean }) => {
        const { path, revision, variables } = await readEnvironmentManifest(io.env);
        if (flags.json) writeJson(io.stdout, { revision, path, variables });
        else
          writeLines(io.stdout, [
            `${path} (${describeCount(revision, variables.length)})`,
            ...renderNameMapping(variables),
          ]);
        return undefined;
      }),
    );
}
