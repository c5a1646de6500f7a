// The sandbox's read of the egress proxy's refusals for it (`baton op get`, the disclosure). Turn token and lease
// like every ops route, but no rollout gate: refusals concern every sandbox.
import { createRoute } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { authenticate, type Caller } from "../../domain/auth/authenticate.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import { errorResponses, jsonContent, Schemas as S, SECURITY } from "../openapi/schemas.js";
import { refusalsOf } from "../proxy-routes/refusals.js";
import type { OpsDeps } from "./deps.js";

export function proxyRefusalRoutes(deps: OpsDeps) {
  const app = createSurface<{ caller: Caller }>();
  const sandbox = createMiddleware<ServerEnv<{ caller: Caller }>>(async (c, next) => {
    c.set("caller", await authenticate(deps.db, c.req.raw.headers, deps.now().getTime()));
    await next();
  });
  app.openapi(
    createRoute({
      method: "get",
      path: "/proxy/refusals",
      summary: "the egress proxy's latest refusals for the calling sandbox (oldest first, at most 50)",
      security: SECURITY.sandbox,
      middleware: [sandbox] as const,
      responses: {
        200: jsonContent(S.ProxyRefusals, "the refusals"),
        ...errorResponses({ 401: "invalid_token: turn token or lease missing, unknown or expired" }),
      },
    }),
    async (c) => c.json({ refusals: await refusalsOf(deps.db, c.var.caller.sandboxId) }, 200),
  );
  return app;
}
