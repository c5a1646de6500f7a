// The egress proxy's internal routes, mounted at /internal/v1/proxy and kept out of the published document:
// the lease lookup (the one place secret values are opened) and refusal reports. Authenticated with the
// operator's BATON_PROXY_TOKEN; without one configured they answer 404, as if they did not exist.
import { createRoute, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import {
  LeaseLookupBodySchema,
  LeasePolicyResponseSchema,
  PROXY_TOKEN_HEADER,
  ReportRefusalsBodySchema,
} from "../../../proxy/lease/wire.js";
import { NO_SUCH_ROUTE } from "../../../transport/wire.js";
import { credentialMatches } from "../../primitives/tokens.js";
import { invalidToken, notFound } from "../http/http-error.js";
import { jsonBody, KiB, MiB } from "../http/json-body.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import { errorResponses, jsonContent } from "../openapi/schemas.js";
import type { ProxyRoutesDeps } from "./deps.js";
import { lookupLeasePolicy } from "./lease-policy.js";
import { recordRefusals } from "./refusals.js";

const ERRORS = errorResponses({
  400: "invalid_request",
  401: "invalid_token: the proxy token is missing or wrong",
  404: "not_found: no such lease (or the internal routes are disabled)",
});

export function createProxyInternalApp(deps: ProxyRoutesDeps) {
  const app = createSurface();
  const proxyOnly = createMiddleware<ServerEnv>(async (c, next) => {
    if (deps.proxyToken === undefined) throw notFound(NO_SUCH_ROUTE);
    const presented = c.req.header(PROXY_TOKEN_HEADER);
    if (!presented || !credentialMatches(presented, deps.proxyToken))
      throw invalidToken("the proxy token is missing or wrong");
    await next();
  });

  app.openapi(
    createRoute({
      method: "post",
      path: "/lease",
      hide: true,
      summary: "the sandbox, workspace and secrets (with values) a lease stands for",
      middleware: [proxyOnly, ...jsonBody("lease lookup", 4 * KiB)] as const,
      request: { body: { required: true, ...jsonContent(LeaseLookupBodySchema, "the lease") } },
      responses: { 200: jsonContent(LeasePolicyResponseSchema, "the lease's policy"), ...ERRORS },
    }),
    async (c) => {
      const policy = await lookupLeasePolicy(
        deps.db,
        deps.secretBox,
        c.req.valid("json").lease,
        deps.now().getTime(),
        { app: deps.codehostApp, logger: deps.logger },
      );
      if (!policy) throw notFound("no such lease, or it has expired");
      c.header("cache-control", "no-store");
      return c.json(policy, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/refusals",
      hide: true,
      summary: "the proxy's refusals, per sandbox",
      middleware: [proxyOnly, ...jsonBody("refusal report", 1 * MiB)] as const,
      request: { body: { required: true, ...jsonContent(ReportRefusalsBodySchema, "the refusals") } },
      responses: { 200: jsonContent(z.object({ stored: z.number().int() }), "stored"), ...ERRORS },
    }),
    async (c) => c.json({ stored: await recordRefusals(deps.db, c.req.valid("json")) }, 200),
  );
  return app;
}
