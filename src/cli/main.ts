// Runs one invocation: checks the log level, builds only the invoked command, parses, runs, and maps the result
// or failure to an exit code through the one table. Returns the exit code; never exits (bin.ts does).
import { type ErrorCode, UsageError } from "../errors.js";
import { type Log, readLogLevel, SILENT_LOG } from "../log-level.js";
import type { CommandContext, CommandResult } from "./context.js";
import { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
import { classifyInvocation, type Invocation } from "./invocation.js";
import type { CliIo } from "./io.js";
import { buildProgram } from "./program.js";
import { COMMANDS } from "./registry.js";
import { reportFailure } from "./report-failure.js";
import { LOGIN_TOKEN_ARGUMENT, TOKEN_ARGUMENT } from "./token-arguments.js";

/** bin.ts loads this one module (and commander) for any command but --version. */
export { processIo } from "./io.js";

export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const json = argv.includes("--json");
  let failed: ErrorCode | undefined;
  try {
    const context: CommandContext = {
      io,
      log: await openLog(io.env),
      action:
        (run) =>
        async (...args) => {
          const result: CommandResult = await run(...args);
          failed = result?.failed;
        },
    };
    const { program, argv: args } = await buildProgram(
      argvToParse(classifyInvocation(argv, COMMANDS)),
      context,
    );
    await program.parseAsync(args, { from: "user" });
    return failed === undefined ? EXIT.ok : exitCodeFor(failed);
  } catch (error) {
    return reportFailure(error, io, json);
  }
}

/** Rule 1: a prompt becomes `start … -- <prompt>`; a command word followed by a word it does not take is refused. */
function argvToParse(invocation: Invocation): string[] {
  if (invocation.kind === "token-argument") {
    throw new UsageError(invocation.command === "login" ? LOGIN_TOKEN_ARGUMENT : TOKEN_ARGUMENT);
  }
  if (invocation.kind !== "mistyped") return invocation.argv;
  const written = [invocation.command, ...invocation.words].join(" ");
  throw new UsageError(
    `'${written}' is not a baton command: ${invocation.command} takes no arguments (usage: ${invocation.usage}). ` +
      `To start a task with that prompt, run: baton start "${written}"`,
  );
}

/** pino costs tens of milliseconds to load: only when BATON_LOG_LEVEL asks for logs (a bad level is an error). */
async function openLog(env: NodeJS.ProcessEnv): Promise<Log> {
  if (readLogLevel(env) === "silent") return SILENT_LOG;
  const { createLogger } = await import("../log.js");
  return createLogger(env);
}
