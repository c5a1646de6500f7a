import type { Command } from "commander";
import type { CommandContext } from "../context.js";

export function registerEnvCommands(program: Command, _context: CommandContext): void {
  program.command("env").description("activate repositories and manage the generated environment files");
  // Subcommands register here: env apply, env show, env activate, env request-capability.
}
