// oidc-provider prints notices with console.info / console.warn (an unsupported Node release, development
// defaults): `baton serve --json` owns stdout, and the service logs through pino. Importing and configuring the
// library run here with those two console methods sent to the service's debug log instead.
import type { Logger } from "pino";

type OidcModule = typeof import("oidc-provider");

export function quietly<T>(logger: Logger, run: () => T): T {
  const { info, warn } = console;
  const toLog = (...args: unknown[]) =>
    logger.debug({ notice: args.map(String).join(" ") }, "oidc-provider notice");
  console.info = toLog;
  console.warn = toLog;
  try {
    return run();
  } finally {
    console.info = info;
    console.warn = warn;
  }
}

let loaded: Promise<OidcModule> | undefined;

export function importProvider(logger: Logger): Promise<OidcModule> {
  loaded ??= (async () => {
    const { info, warn } = console;
    const toLog = (...args: unknown[]) =>
      logger.debug({ notice: args.map(String).join(" ") }, "oidc-provider notice");
    console.info = toLog;
    console.warn = toLog;
    try {
      return await import("oidc-provider");
    } finally {
      console.info = info;
      console.warn = warn;
    }
  })();
  return loaded;
}
