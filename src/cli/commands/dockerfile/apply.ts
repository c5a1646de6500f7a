// `baton dockerfile apply <owner/name>`: runs the RUN steps in order, persists ENV, records every step.
import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { declareDockerfileCommand } from "./shared.js";

export function declare(command: Command, context: CommandContext): void {
  declareDockerfileCommand(command, context, "apply")
    .option("--step-timeout <seconds>", "stop a RUN step after this long (default 1800)")
    .addHelpText(
      "after",
      "\nExit 0 when every runnable step succeeded; 1 on a failed step (named) or bad input.",
    );
}
