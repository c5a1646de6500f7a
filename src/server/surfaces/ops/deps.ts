// The dependencies the operations transport (`/ops/v1`) takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { CapabilitySettings } from "../../domain/capability/settings.js";
import type { OperationWaiters } from "../../domain/operations/waiters.js";
import type { OperationWorker } from "../../domain/operations/worker.js";
import type { Store } from "../../store/store.js";

/** What the operations transport (`/ops/v1`) uses of the service: nothing more (composition hands over the whole set). */
export interface OpsDeps {
  db: Store;
  now: () => Date;
  waiters: OperationWaiters;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
  worker: OperationWorker;
  logger: Logger;
}
