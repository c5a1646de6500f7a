// oidc-provider prints notices with console.info / console.warn (an unsupported Node release, development
// defaults): `baton serve --json` owns stdout, and the service logs through pino. Importing and configuring the
// library run here with those two console methods sent to the service's debug log instead.
import type { Logger } from "pino";

type OidcModule = typeof import("oidc-provider");

/** Sends console.info / console.warn to the debug log until the returned function is called. */
function consoleToLog(logger: Logger): () => void {
  const { info, warn } = console;
  const toLog = (...args: unknown[]) =>
    logger.debug({ notice: args.map(String).join(" ") }, "oidc-provider notice");
  console.info = toLog;
  console.warn = toLog;
  return () => {
    console.info = info;
    console.warn = warn;
  };
}

export function quietly<T>(logger: Logger, run: () => T): T {
  const restore = consoleToLog(logger);
  try {
    return run();
  } finally {
    restore();
  }
}

let loaded: Promise<OidcModule> | undefined;

export function importProvider(logger: Logger): Promise<OidcModule> {
  loaded ??= (async () => {
    const restore = consoleToLog(logger);
    try {
      return await import("oidc-provider");
    } finally {
      restore();
    }
  })();
  return loaded;
}
