import type { Command } from "commander";
import type { CommandContext } from "../context.js";
import { registerEnvActivate } from "./env-activate.js";
import { registerEnvApply } from "./env-apply.js";
import { registerEnvRequestCapability } from "./env-request-capability.js";
import { registerEnvShow } from "./env-show.js";

export function registerEnvCommands(program: Command, context: CommandContext): void {
  const env = program
    .command("env")
    .description("activate repositories and manage the generated environment files");
  registerEnvActivate(env, context);
  registerEnvApply(env, context);
  registerEnvShow(env, context);
  registerEnvRequestCapability(env, context);
  // Subcommands register here: env apply, env show, env activate, env request-capability.
}
