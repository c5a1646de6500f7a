import type { ExitCode } from "./exit-codes.js";
import type { CliIo } from "./io.js";

/** Handed to every command registrar. A command's action returns its exit code or throws a BatonError. */
export interface CommandContext {
  io: CliIo;
  /** Wraps an action so its returned exit code becomes the process's. */
  action<A extends unknown[]>(
    run: (...args: A) => Promise<ExitCode | undefined>,
  ): (...args: A) => Promise<void>;
}
