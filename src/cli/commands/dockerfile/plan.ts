// `baton dockerfile plan <owner/name>`: the steps, without running anything.
import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { declareDockerfileCommand } from "./shared.js";

export function declare(command: Command, context: CommandContext): void {
  declareDockerfileCommand(command, context, "plan");
}
