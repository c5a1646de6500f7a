// The one authorization server (DESIGN "One authorization server"): oidc-provider set up as an OAuth 2.1 server
// for native apps (RFC 8252 loopback redirects) and web-hosted MCP clients (https redirects; client-policy.ts),
// registered dynamically (RFC 7591) or by Client ID Metadata Document; PKCE S256 only, RFC 8707 resource
// indicators (the API and the MCP endpoint), RFC 9207 `iss`, opaque access tokens of an hour and refresh tokens
// rotated on every use (RFC 9700 section 4.14.2: a reused one ends the whole sign-in), the chain lasting as the
// sign-in does; no OpenID Connect (no ID tokens, no user info); its state in our store. Made on first use: the
// issuer is the service's public URL, known once the service listens, and the library stays off `baton serve`'s
// start-up path.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { AdapterPayload, Configuration, KoaContextWithOIDC, Provider } from "oidc-provider";
import { endGrant, endSignIn, recordAccessToken, signInStateOf } from "../../domain/auth/sign-ins.js";
import { findUserById } from "../../domain/auth/users.js";
import { createStoreAdapter } from "./adapter.js";
import { CLIENT_AUTH_METHODS, refuseClient } from "./client-policy.js";
import type { OAuthDeps } from "./deps.js";
import { createGuardedFetch } from "./guarded-fetch.js";
import { importProvider, quietly } from "./load-quietly.js";
import { describeAuthorizationServer } from "./metadata.js";
import { PROVIDER_SESSION_COOKIE } from "./provider-session.js";
import { requireLiveWebSession } from "./web-session-check.js";
import {
  ACCESS_TOKEN_LIFETIME_MS,
  API_SCOPE,
  GRANT_TYPES,
  OAUTH_PATHS,
  RESOURCES,
  type ResourceKind,
  SIGN_IN_IDLE_MS,
  SIGN_IN_LIFETIME_MS,
} from "./wire.js";

export interface AuthorizationServer {
  issuer: string;
  provider: Provider;
  /** The provider's Koa handler for a Node request and response. */
  handle: ReturnType<Provider["callback"]>;
  /** The resource indicator of the public API: `<issuer>/v1`. */
  apiResource: string;
}

const SECONDS = (ms: number): number => Math.floor(ms / 1000);

export const issuerOf = (deps: Pick<OAuthDeps, "capability">): string =>
  (deps.capability?.serviceUrl ?? "http://127.0.0.1").replace(/\/+$/, "");

/** Which resource an indicator names, or undefined (the provider then answers `invalid_target`). */
export function resourceKindOf(issuer: string, indicator: string): ResourceKind | undefined {
  for (const [kind, path] of Object.entries(RESOURCES))
    if (indicator === `${issuer}${path}`) return kind as ResourceKind;
  return undefined;
}

export async function createAuthorizationServer(deps: OAuthDeps): Promise<AuthorizationServer> {
  const { Provider: ProviderClass, errors, interactionPolicy } = await importProvider(deps.logger);
  const issuer = issuerOf(deps);
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const made: { provider?: Provider } = {};
  const Adapter = createStoreAdapter(deps.db, {
    secretBox: deps.secretBox,
    mayRefresh: async (grantId) => (await signInStateOf(deps.db, grantId, deps.now().getTime())) === "active",
    async refreshTokenReused(grantId) {
      if (grantId) await endGrant(deps.db, grantId, deps.now().getTime());
      return new errors.InvalidGrant("refresh token already used");
    },
    async onAccessToken(token: string, payload: AdapterPayload) {
      const kind = payload.aud ? resourceKindOf(issuer, String(payload.aud)) : undefined;
      if (!kind || !payload.grantId || !payload.accountId || !payload.clientId) return;
      const clientName = await clientNameOf(made.provider, payload.clientId);
      await recordAccessToken(
        deps.db,
        {
          token,
          grantId: payload.grantId,
          userId: payload.accountId,
          clientId: payload.clientId,
          clientName,
          resourceKind: kind,
          // The token's lifetime on the service's clock, which the API's check reads (the library keeps its own).
          expiresAtMs:
            deps.now().getTime() +
            (payload.exp && payload.iat ? (payload.exp - payload.iat) * 1000 : ACCESS_TOKEN_LIFETIME_MS),
        },
        deps.now().getTime(),
      );
    },
  });
  const ttl = (seconds: number) => () => seconds;
  const configuration: Configuration = {
    adapter: Adapter,
    clients: [],
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    clientDefaults: {
      grant_types: [...GRANT_TYPES],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    },
    responseTypes: ["code"],
    // The one scope a token carries, which registration and authorization accept (issue 35 B.11: the MCP SDK
    // registers with the scope the protected-resource metadata names). The library always knows `openid` too; it
    // is refused at registration (client-policy.ts) and authorization (app.ts) and never advertised (metadata.ts).
    scopes: [API_SCOPE],
    claims: { openid: ["sub"] },
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(32).toString("base64url")], names: { session: PROVIDER_SESSION_COOKIE } },
    jwks: { keys: [privateKey.export({ format: "jwk" }) as never] },
    routes: {
      authorization: OAUTH_PATHS.authorization,
      token: OAUTH_PATHS.token,
      registration: OAUTH_PATHS.registration,
      revocation: OAUTH_PATHS.revocation,
      jwks: OAUTH_PATHS.jwks,
      pushed_authorization_request: OAUTH_PATHS.pushedAuthorization,
    },
    interactions: {
      url: async (_ctx, interaction) => `${OAUTH_PATHS.interaction}/${interaction.uid}`,
      policy: requireLiveWebSession(interactionPolicy, deps),
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false, issueRegistrationAccessToken: false },
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      // Client ID Metadata Documents (draft-02, experimental in the library): a client_id that is an https URL is
      // fetched (2 s, 5 KiB, never from a private or loopback address: guarded-fetch.ts) and checked by the same client policy.
      clientIdMetadataDocument: { enabled: true, ack: "draft-02" },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      dPoP: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => `${issuer}${RESOURCES.api}`,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!resourceKindOf(issuer, indicator))
            throw new errors.InvalidTarget(`the resource must be ${issuer}${RESOURCES.api}`);
          return {
            scope: API_SCOPE,
            audience: indicator,
            accessTokenFormat: "opaque",
            // An hour; the app renews it with the sign-in's refresh token (`baton` does so on its own: refresh-sign-in.ts).
            accessTokenTTL: SECONDS(ACCESS_TOKEN_LIFETIME_MS),
          };
        },
      },
    },
    extraClientMetadata: {
      // A property nobody sends: its validator runs once per registration and sees the whole metadata.
      properties: ["baton_policy"],
      validator(_ctx, _key, _value, metadata) {
        const refusal = refuseClient(metadata as never);
        if (refusal) throw new errors.InvalidClientMetadata(refusal);
      },
    },
    // Every client that registered for refresh tokens (the default) gets one with its first access token, and a new
    // one on every refresh; a refresh token used twice ends the sign-in (the library revokes the grant).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    findAccount: async (_ctx, sub) => {
      const user = await findUserById(deps.db, sub);
      return user ? { accountId: user.id, claims: async () => ({ sub: user.id }) } : undefined;
    },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = renderProviderError(String(out.error ?? "error"), String(out.error_description ?? ""));
    },
    ttl: {
      AccessToken: ttl(SECONDS(ACCESS_TOKEN_LIFETIME_MS)),
      AuthorizationCode: ttl(60),
      Grant: ttl(SECONDS(SIGN_IN_LIFETIME_MS)),
      IdToken: ttl(600),
      Interaction: ttl(900),
      // A refresh token lasts 30 days (the sign-in's "unused" limit) and never past the chain's 90 days; the
      // sign-in's own record (last use, Disconnect) is checked on every refresh too (adapter.ts, mayRefresh).
      RefreshToken: (_ctx, token) =>
        Math.max(
          0,
          Math.min(
            SECONDS(SIGN_IN_IDLE_MS),
            (token.iiat ?? SECONDS(Date.now())) + SECONDS(SIGN_IN_LIFETIME_MS) - SECONDS(Date.now()),
          ),
        ),
      Session: ttl(900),
    },
    clientBasedCORS: () => false,
    // Resolve, judge every address, dial a checked one (guarded-fetch.ts): the library's own guard connects first.
    fetch: deps.oauthFetch ?? createGuardedFetch(),
  };
  const provider = quietly(deps.logger, () => new ProviderClass(issuer, configuration));
  made.provider = provider;
  provider.proxy = false;
  // RFC 8414 metadata says exactly what is issued: OAuth access and refresh tokens for the one scope, no ID tokens.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === "discovery" && ctx.body && typeof ctx.body === "object")
      ctx.body = describeAuthorizationServer(ctx.body as Record<string, unknown>);
  });
  // The library revokes a grant when a used refresh token comes back (or one is revoked at /oauth/revoke): the
  // sign-in ends with it, so Connected apps no longer lists it.
  provider.on("grant.revoked", (_ctx: unknown, grantId: string) => {
    endSignIn(deps.db, grantId, deps.now().getTime()).catch((error: unknown) =>
      deps.logger.error({ err: error }, "could not end the sign-in of a revoked grant"),
    );
  });
  return { issuer, provider, handle: provider.callback(), apiResource: `${issuer}${RESOURCES.api}` };
}

/** The client's client_name (registered, or from its Client ID Metadata Document), for the Connected apps list. */
async function clientNameOf(provider: Provider | undefined, clientId: string): Promise<string> {
  const client = await provider?.Client.find(clientId).catch(() => undefined);
  const name = client?.clientName;
  return typeof name === "string" && name ? name : "an app without a name";
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The provider's own error page (a bad authorization request, an unknown client): what went wrong, what to do. */
export function renderProviderError(error: string, description: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head><body><main>
<h1>Sign-in failed</h1><p>${escapeHtml(error)}: ${escapeHtml(description)}</p>
<p>Start the sign-in again from the app that asked (for the command line: <code>baton login</code>).</p></main></body></html>`;
}

export type { KoaContextWithOIDC };
