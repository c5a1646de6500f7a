// Libraries that print notices with console.info / console.warn (oidc-provider on an unsupported Node release,
// the MCP SDK in JSON mode): `baton serve --json` owns stdout and the service logs through pino, so while such a
// library is loaded or configured its notices go to the debug log, labelled with the library's name.
import type { Logger } from "pino";

/** Sends console.info / console.warn to the debug log until the returned function is called. */
export function consoleToLog(logger: Logger, library: string): () => void {
  const { info, warn } = console;
  const toLog = (...args: unknown[]) =>
    logger.debug({ library, notice: args.map(String).join(" ") }, `${library} notice`);
  console.info = toLog;
  console.warn = toLog;
  return () => {
    console.info = info;
    console.warn = warn;
  };
}

/** Runs `run` with `library`'s console notices sent to the debug log. */
export function quietly<T>(logger: Logger, library: string, run: () => T): T {
  const restore = consoleToLog(logger, library);
  try {
    return run();
  } finally {
    restore();
  }
}
