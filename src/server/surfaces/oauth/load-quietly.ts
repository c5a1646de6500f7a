// oidc-provider prints notices with console.info / console.warn (an unsupported Node release, development
// defaults): `baton serve --json` owns stdout, and the service logs through pino. Importing and configuring the
// library run here with those two console methods sent to the service's debug log instead.
import type { Logger } from "pino";
import { consoleToLog, quietly as quietlyFor } from "../http/console-notices.js";

const LIBRARY = "oidc-provider";

/** Runs `run` with oidc-provider's console notices sent to the debug log. */
export const quietly = <T>(logger: Logger, run: () => T): T => quietlyFor(logger, LIBRARY, run);

type OidcModule = typeof import("oidc-provider");

let loaded: Promise<OidcModule> | undefined;

export function importProvider(logger: Logger): Promise<OidcModule> {
  loaded ??= (async () => {
    const restore = consoleToLog(logger, LIBRARY);
    try {
      return await import("oidc-provider");
    } finally {
      restore();
    }
  })();
  return loaded;
}
