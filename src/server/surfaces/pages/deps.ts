// The dependencies the pages (dashboard, install flows, tokens, sign-in, approval) takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { CodehostAppApi } from "../../adapters/codehost/app-api.js";
import type { IntegrationSettings } from "../../adapters/integrations/settings.js";
import type { CapabilitySettings } from "../../domain/capability/settings.js";
import type { TaskService } from "../../domain/tasks/service.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";

/** What the pages (dashboard, install flows, tokens, sign-in, approval) uses of the service: nothing more (composition hands over the whole set). */
export interface PagesDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
  /** Seals secret values (seed, secrets PUT); the proxy's internal route opens them. */
  secretBox: SecretBox;
  /** The real code host's and tracker's settings (App, OAuth application, webhook secrets, triggers). */
  integrations: IntegrationSettings;
  /** The code-host App's API when one is configured (install callback, installation tokens); unset: local. */
  codehostApp?: CodehostAppApi | undefined;
  /** Registers work to finish when the service stops (e.g. the e-mail delivery worker). */
  onStop?: (stop: () => Promise<void>) => void;
}
