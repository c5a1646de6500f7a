// The dependencies the MCP endpoint takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { CapabilitySettings } from "../../domain/capability/settings.js";
import type { TaskService } from "../../domain/tasks/service.js";
import type { Store } from "../../store/store.js";

/** What the MCP endpoint uses of the service: nothing more (composition hands over the whole set). */
export interface McpDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
  /** Capability-request settings (`--smtp-url`, `--matcher-url`, `--dashboard-url`). */
  capability?: CapabilitySettings | undefined;
}
