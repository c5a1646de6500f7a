// Renders any thrown value as the CLI's error output and exit code. Never prints a stack for a BatonError.
import { CommanderError } from "commander";
import { BatonError } from "../errors.js";
import { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
import { type CliIo, writeJson, writeLine } from "./io.js";

export interface RenderedFailure {
  exitCode: ExitCode;
}

export function reportFailure(error: unknown, io: CliIo, json: boolean): RenderedFailure {
  if (error instanceof CommanderError) {
    // commander has already printed its own message (e.g. "error: unknown option '--x'").
    const ok = error.code === "commander.helpDisplayed" || error.code === "commander.version";
    return { exitCode: ok ? EXIT.ok : EXIT.error };
  }
  const batonError =
    error instanceof BatonError
      ? error
      : new BatonError("internal", `unexpected failure: ${describe(error)}`, { cause: error });
  const where = batonError.path ? ` (at ${batonError.path})` : "";
  writeLine(io.stderr, `baton: ${batonError.message}${where}`);
  if (json) {
    writeJson(io.stdout, {
      error: {
        code: batonError.code,
        message: batonError.message,
        ...(batonError.path ? { path: batonError.path } : {}),
      },
    });
  }
  return { exitCode: exitCodeFor(batonError.code) };
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
