// Renders any thrown value as the CLI's error output and exit code: `baton: <message>` on stderr and, with
// `--json`, `{"error": {code, message, path?}}` on stdout. Never prints a stack for a BatonError.
import { CommanderError } from "commander";
import { BatonError, isBatonError } from "../errors.js";
import { EXIT, type ExitCode, exitCodeFor } from "./exit-codes.js";
import { type CliIo, writeJson, writeLine } from "./io.js";
import { maskTokens } from "./token-arguments.js";

export function reportFailure(error: unknown, io: CliIo, json: boolean): ExitCode {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
    // commander has printed its message on stderr (e.g. "baton: unknown option '--x'"); scripts get it as JSON.
    if (json) {
      const message = maskTokens(error.message.replace(/^error: /, ""));
      writeJson(io.stdout, { error: { code: "usage", message } });
    }
    return exitCodeFor("usage");
  }
  const batonError = isBatonError(error)
    ? error
    : new BatonError("internal", `unexpected failure: ${describe(error)}`, { cause: error });
  const where =
    batonError.path && !batonError.message.includes(batonError.path) ? ` (at ${batonError.path})` : "";
  // No message echoes an argument that looks like an access token, whatever built it.
  const message = maskTokens(batonError.message);
  writeLine(io.stderr, maskTokens(`baton: ${batonError.message}${where}`));
  if (json) {
    writeJson(io.stdout, {
      error: {
        code: batonError.code,
        message,
        ...(batonError.path ? { path: batonError.path } : {}),
      },
    });
  }
  return exitCodeFor(batonError.code);
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
