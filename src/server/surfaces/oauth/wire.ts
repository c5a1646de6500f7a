// The authorization server's wire constants: its paths on the public listener, the one scope it grants, its grants, the
// resources it issues tokens for and how long a sign-in lasts (kept with the sign-ins in domain/auth/sign-in-terms.ts).
export const OAUTH_BASE_PATH = "/oauth";

export const OAUTH_PATHS = {
  authorization: `${OAUTH_BASE_PATH}/authorize`,
  token: `${OAUTH_BASE_PATH}/token`,
  registration: `${OAUTH_BASE_PATH}/register`,
  revocation: `${OAUTH_BASE_PATH}/revoke`,
  jwks: `${OAUTH_BASE_PATH}/jwks`,
  /** Pushed authorization requests (RFC 9126) are switched off; this path is named so it never falls to hono. */
  pushedAuthorization: `${OAUTH_BASE_PATH}/par`,
  /** Our own approval page: oidc-provider's interaction URL. */
  interaction: `${OAUTH_BASE_PATH}/interaction`,
} as const;

export const WELL_KNOWN = {
  /** RFC 8414, served by the provider. */
  authorizationServer: "/.well-known/oauth-authorization-server",
  openidConfiguration: "/.well-known/openid-configuration",
  /** RFC 9728, ours. */
  protectedResource: "/.well-known/oauth-protected-resource",
} as const;

/** The one scope a Baton token carries: act as the user through the public API or the MCP endpoint. */
export const API_SCOPE = "baton";

/** The grants a client may use: the authorization code (with PKCE), then refresh tokens rotated on every use. */
export const GRANT_TYPES = ["authorization_code", "refresh_token"] as const;

export {
  ACCESS_TOKEN_LIFETIME_MS,
  LAST_USE_GRANULARITY_MS,
  RESOURCES,
  type ResourceKind,
  SIGN_IN_IDLE_MS,
  SIGN_IN_LIFETIME_MS,
} from "../../domain/auth/sign-in-terms.js";

import type { ResourceKind } from "../../domain/auth/sign-in-terms.js";

/** Each resource's `resource_name` in its RFC 9728 metadata. */
export const RESOURCE_NAMES: Record<ResourceKind, string> = {
  api: "Baton public API",
  mcp: "Baton MCP endpoint",
};
