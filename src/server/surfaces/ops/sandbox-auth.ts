// The ops surface's credentials check, run as route middleware before anything reads the body: the turn token
// and sandbox lease (authenticate.ts), then the rollout gate. The caller lands in `c.var.caller`.
import { createMiddleware } from "hono/factory";
import { authenticate, type Caller, requireRollout } from "../../domain/auth/authenticate.js";
import type { ServerEnv } from "../http/surface.js";
import type { OpsDeps } from "./deps.js";

export type OpsEnv = ServerEnv<{ caller: Caller }>;

export function sandboxAuth(deps: OpsDeps, options: { allowExpired?: boolean } = {}) {
  return createMiddleware<OpsEnv>(async (c, next) => {
    const caller = await authenticate(deps.db, c.req.raw.headers, deps.now().getTime(), options);
    requireRollout(caller);
    c.set("caller", caller);
    await next();
  });
}
