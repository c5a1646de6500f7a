// The dependencies the public API (`/v1`) takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { TaskService } from "../../domain/tasks/service.js";
import type { Store } from "../../store/store.js";

/** What the public API (`/v1`) uses of the service: nothing more (composition hands over the whole set). */
export interface ApiDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
}
