// The ops surface's credentials check, run as route middleware before anything reads the body: the turn token
// and sandbox lease (authenticate.ts), then the rollout gate. The caller lands in `c.var.caller`.
import { createMiddleware } from "hono/factory";
import { touchActivity } from "../../adapters/sandboxes/store.js";
import { authenticate, type Caller, requireRollout } from "../../domain/auth/authenticate.js";
import type { ServerEnv } from "../http/surface.js";
import type { OpsDeps } from "./deps.js";

export type OpsEnv = ServerEnv<{ caller: Caller }>;

/**
 * `deferActivity`: the route records the lease use in its own transaction (see Caller.activity); when the request
 * ends without it (refused before the handler ran, or failed), it is recorded here, after the answer is made.
 */
export function sandboxAuth(
  deps: OpsDeps,
  options: { allowExpired?: boolean; deferActivity?: boolean } = {},
) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    const caller = await authenticate(deps.db, c.req.raw.headers, deps.now().getTime(), options);
    if (caller.activity) {
      const { activity } = caller;
      try {
        requireRollout(caller);
        c.set("caller", caller);
        await next();
      } finally {
        if (!activity.recorded) await touchActivity(deps.db, caller.sandboxId, activity.atMs);
      }
      return;
    }
    requireRollout(caller);
    c.set("caller", caller);
    await next();
  });
}
