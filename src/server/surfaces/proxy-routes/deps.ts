// The dependencies the egress proxy's internal routes takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { CodehostAppApi } from "../../adapters/codehost/app-api.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";

/** What the egress proxy's internal routes uses of the service: nothing more (composition hands over the whole set). */
export interface ProxyRoutesDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** The code-host App's API when one is configured (install callback, installation tokens); unset: local. */
  codehostApp?: CodehostAppApi | undefined;
  /** BATON_PROXY_TOKEN: enables the egress proxy's internal routes; unset, they answer 404. */
  proxyToken?: string | undefined;
}
