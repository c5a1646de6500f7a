// The dependencies the local code host's git route takes from the composition (serve.ts, app.ts).
import type { TaskService } from "../../domain/tasks/service.js";
import type { Store } from "../../store/store.js";

/** What the local code host's git route uses of the service: nothing more (composition hands over the whole set). */
export interface GitRouteDeps {
  db: Store;
  now: () => Date;
  /** The task engine: operations of the public API, the turn runtime, the rate limiter. */
  tasks: TaskService;
}
