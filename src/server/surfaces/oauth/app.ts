// The authorization server on the public listener: its endpoints (`/oauth/…`, RFC 8414 metadata) handed to
// oidc-provider, a Koa app, through the Node request and response @hono/node-server gives every route; and the
// protected resource metadata (RFC 9728) for the API and the MCP endpoint, which is ours. The approval page is in approval-app.ts.
import type { HttpBindings } from "@hono/node-server";
import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import type { Context } from "hono";
import { sourceKeyOf } from "../../../throttle/source-address.js";
import { HEADERS } from "../../../transport/wire.js";
import { sourceAddressOf } from "../http/failed-credentials.js";
import { HttpError } from "../http/http-error.js";
import { createSurface, type ServerEnv } from "../http/surface.js";
import type { OAuthDeps } from "./deps.js";
import { type AuthorizationServer, issuerOf, renderProviderError } from "./provider.js";
import { DEFAULT_REGISTRATION_LIMITS, refuseRegistration } from "./registration-limits.js";
import { API_SCOPE, OAUTH_PATHS, RESOURCE_NAMES, RESOURCES, type ResourceKind, WELL_KNOWN } from "./wire.js";

/** The provider's routes; anything else under /oauth is ours or a 404. */
const PROVIDER_PATHS = [
  OAUTH_PATHS.authorization,
  // Where the approval page sends the browser back: the provider resumes the authorization there.
  `${OAUTH_PATHS.authorization}/:uid`,
  OAUTH_PATHS.token,
  OAUTH_PATHS.registration,
  OAUTH_PATHS.revocation,
  OAUTH_PATHS.jwks,
  WELL_KNOWN.authorizationServer,
  WELL_KNOWN.openidConfiguration,
] as const;

/** RFC 9728 metadata for a resource (the public API, the MCP endpoint): where its tokens come from, how to send them. */
export function describeProtectedResource(
  issuer: string,
  kind: ResourceKind = "api",
): Record<string, unknown> {
  return {
    resource: `${issuer}${RESOURCES[kind]}`,
    authorization_servers: [issuer],
    scopes_supported: [API_SCOPE],
    bearer_methods_supported: ["header"],
    resource_name: RESOURCE_NAMES[kind],
  };
}

/** The provider answers OAuth requests only: `openid` (ID tokens, user info) is not offered, and is refused here. */
export function asksForOpenId(url: URL): boolean {
  return (url.searchParams.get("scope") ?? "").split(" ").includes("openid");
}

export function createOAuthApp(deps: OAuthDeps, server: () => Promise<AuthorizationServer>) {
  const app = createSurface();
  const protectedResource = (kind: ResourceKind) => (c: Context<ServerEnv>) =>
    c.json(describeProtectedResource(issuerOf(deps), kind), 200);
  // RFC 9728 section 3.1: the resource's path is appended to the well-known prefix; the bare prefix is the API's.
  app.get(WELL_KNOWN.protectedResource, protectedResource("api"));
  for (const kind of Object.keys(RESOURCES) as ResourceKind[])
    app.get(`${WELL_KNOWN.protectedResource}${RESOURCES[kind]}`, protectedResource(kind));
  const handOver = async (c: Context<ServerEnv>) => {
    const bindings = c.env as Partial<HttpBindings> | undefined;
    if (!bindings?.incoming || !bindings.outgoing)
      throw new HttpError(503, "unavailable", "the authorization server is served over a socket only");
    if (c.req.path === OAUTH_PATHS.authorization && asksForOpenId(new URL(c.req.url)))
      return c.html(
        renderProviderError(
          "invalid_scope",
          "this service issues OAuth access tokens only; request the scope without openid",
        ),
        400,
      );
    if (c.req.path === OAUTH_PATHS.registration && c.req.method === "POST") {
      const refusal = await refuseRegistration(
        { db: deps.db, limiter: deps.tasks.limiter },
        sourceKeyOf(sourceAddressOf(c)),
        deps.oauthRegistrationLimits ?? DEFAULT_REGISTRATION_LIMITS,
        deps.now().getTime(),
      );
      if (refusal)
        return c.json(
          { error: refusal.error, error_description: refusal.description },
          refusal.status,
          refusal.retryAfterSeconds ? { [HEADERS.retryAfter]: String(refusal.retryAfterSeconds) } : {},
        );
    }
    const { handle } = await server();
    await handle(bindings.incoming, bindings.outgoing);
    return RESPONSE_ALREADY_SENT;
  };
  for (const path of PROVIDER_PATHS) app.on(["GET", "POST", "OPTIONS"], path, handOver);
  return app;
}
