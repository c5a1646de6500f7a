// Runs one invocation: checks the log level, builds only the invoked command, parses, runs, and maps the result
// or failure to an exit code through the one table. Returns the exit code; never exits (bin.ts does).
import type { ErrorCode } from "../errors.js";
import { type Log, readLogLevel, SILENT_LOG } from "../log-level.js";
import type { CommandContext, CommandResult } from "./context.js";
import { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { buildProgram } from "./program.js";
import { reportFailure } from "./report-failure.js";

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
    const { program, argv: args } = await buildProgram(argv, context);
    await program.parseAsync(args, { from: "user" });
    return failed === undefined ? EXIT.ok : exitCodeFor(failed);
  } catch (error) {
    return reportFailure(error, io, json);
  }
}

/** pino costs tens of milliseconds to load: only when BATON_LOG_LEVEL asks for logs (a bad level is an error). */
async function openLog(env: NodeJS.ProcessEnv): Promise<Log> {
  if (readLogLevel(env) === "silent") return SILENT_LOG;
  const { createLogger } = await import("../log.js");
  return createLogger(env);
}
