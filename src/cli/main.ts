// Builds the command tree and runs one invocation. Returns the exit code; never exits.
import { Command } from "commander";
import { readVersion } from "../version.js";
import { registerCommands } from "./commands/index.js";
import type { CommandContext } from "./context.js";
import { reportFailure } from "./errors-output.js";
import { EXIT, type ExitCode } from "./exit-codes.js";
import type { CliIo } from "./io.js";

export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.ok;
  const context: CommandContext = {
    io,
    action:
      (run) =>
      async (...args) => {
        exitCode = (await run(...args)) ?? EXIT.ok;
      },
  };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    return reportFailure(error, io, argv.includes("--json")).exitCode;
  }
}

export function buildProgram(context: CommandContext): Command {
  const { io } = context;
  const program = new Command("baton")
    .description("Sandbox-side runtime for coding agents")
    .version(readVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help for a command")
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(`baton: ${text.replace(/^error: /, "")}`),
    });
  program.addHelpCommand(false);
  registerCommands(program, context);
  return program;
}
