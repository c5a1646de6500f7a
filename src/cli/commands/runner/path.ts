// `baton runner path`: the packaged startup runner bundle's absolute path, for installing it at a handoff's runPath.
import type { Command } from "commander";
import { locateRunnerBundle } from "../../../activation/runner-path.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";

export function declare(command: Command, { io, action }: CommandContext): void {
  command.option("--json", 'print {"path": "..."}').action(
    action(async (flags: { json?: boolean }) => {
      const path = locateRunnerBundle();
      if (flags.json) writeJson(io.stdout, { path });
      else writeLine(io.stdout, path);
      return undefined;
    }),
  );
}
