// The dependencies the webhook receivers takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { IntegrationSettings } from "../../adapters/integrations/settings.js";
import type { TaskService } from "../../domain/tasks/service.js";
import type { Store } from "../../store/store.js";

/** What the webhook receivers uses of the service: nothing more (composition hands over the whole set). */
export interface WebhooksDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
  /** The real code host's and tracker's settings (App, OAuth application, webhook secrets, triggers). */
  integrations: IntegrationSettings;
  /** The webhook queue's worker: the receivers wake it after queueing a delivery. */
  webhooks?: { wake(): void } | undefined;
}
