// The dependencies the member routes takes from the composition (serve.ts, app.ts).
import type { Logger } from "pino";
import type { Store } from "../../store/store.js";

/** What the member routes uses of the service: nothing more (composition hands over the whole set). */
export interface MembersDeps {
  db: Store;
  now: () => Date;
  logger: Logger;
}
