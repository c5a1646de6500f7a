// What every command module gets: the outside world, a logger, and the wrapper that turns its result into the
// exit code (through the one table in exit-codes.ts).
import type { ErrorCode } from "../errors.js";
import type { Log } from "../log-level.js";
import type { CliIo } from "./io.js";

/**
 * Nothing: success (exit 0). `{failed}`: the command has printed its result, and the run counts as that error
 * (e.g. `op get` of a failed operation prints it and exits 6). Anything else goes by throwing a BatonError.
 */
export type CommandResult = undefined | { failed: ErrorCode };

export interface CommandContext {
  io: CliIo;
  /** Pino at BATON_LOG_LEVEL, or a no-op when logging is off (the default). */
  log: Log;
  /** Wraps a commander action so its result decides the exit code. */
  action<A extends unknown[]>(run: (...args: A) => Promise<CommandResult>): (...args: A) => Promise<void>;
}
