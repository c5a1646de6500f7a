// Every top-level command group. Each registrar only declares flags; implementations load lazily in actions.
import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { registerAdminCommands } from "./admin.js";
import { registerDisclose } from "./disclose.js";
import { registerDockerfileCommands } from "./dockerfile.js";
import { registerEnvCommands } from "./env.js";
import { registerOpCommands } from "./op.js";
import { registerRunnerCommands } from "./runner.js";
import { registerServe } from "./serve.js";

export function registerCommands(program: Command, context: CommandContext): void {
  registerEnvCommands(program, context);
  registerOpCommands(program, context);
  registerServe(program, context);
  registerAdminCommands(program, context);
  registerDockerfileCommands(program, context);
  registerRunnerCommands(program, context);
  registerDisclose(program, context);
}
