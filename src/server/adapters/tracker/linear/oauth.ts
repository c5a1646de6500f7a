// Linear's OAuth 2.0 authorization-code flow with PKCE: the authorization URL (the workspace's connection asks
// for `actor=app`; a member's identity link does not), and the code exchange and refresh at the token endpoint
// (form-encoded, client id and secret in the body). The secret and the tokens never reach an error message.
import { z } from "zod";
import type { TrackerOAuthSettings } from "../../integrations/settings.js";
import type { OAuthTokens } from "../connections.js";
import { TrackerApiError } from "./errors.js";
import { challengeOf, PKCE_METHOD } from "./pkce.js";
import { LINEAR_APP_ACTOR, LINEAR_PATHS, LINEAR_SCOPES } from "./wire.js";

/** The token endpoint's answer is awaited this long (a person waits on the callback page). */
const TOKEN_TIMEOUT_MS = 15_000;

export type AuthorizationPurpose = "connect" | "link";

/** Where to send the browser: pure over the settings, the redirect URI, the state and the PKCE verifier. */
export function buildAuthorizationUrl(input: {
  settings: Pick<TrackerOAuthSettings, "clientId" | "webUrl">;
  redirectUri: string;
  state: string;
  verifier: string;
  purpose: AuthorizationPurpose;
}): string {
  const url = new URL(`${input.settings.webUrl}${LINEAR_PATHS.authorize}`);
  const params: [string, string][] = [
    ["client_id", input.settings.clientId],
    ["redirect_uri", input.redirectUri],
    ["response_type", "code"],
    ["scope", LINEAR_SCOPES.join(",")],
    ["state", input.state],
    ["code_challenge", challengeOf(input.verifier)],
    ["code_challenge_method", PKCE_METHOD],
  ];
  if (input.purpose === "connect") params.push(["actor", LINEAR_APP_ACTOR]);
  for (const [name, value] of params) url.searchParams.set(name, value);
  return url.href;
}

const TokenAnswer = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
  scope: z.union([z.string(), z.array(z.string())]).optional(),
});
const TokenRefusal = z.object({ error: z.string(), error_description: z.string().optional() });

export interface TokenEndpointDeps {
  settings: TrackerOAuthSettings;
  fetch: typeof fetch;
  now: () => Date;
}

/** Exchanges the callback's code (with the state's PKCE verifier) for the tokens. */
export function exchangeCode(
  deps: TokenEndpointDeps,
  input: { code: string; verifier: string; redirectUri: string },
): Promise<OAuthTokens> {
  return requestTokens(deps, "exchanging the authorization code", {
    grant_type: "authorization_code",
    code: input.code,
    code_verifier: input.verifier,
    redirect_uri: input.redirectUri,
  });
}

/** A new access token for a refresh token; Linear rotates the refresh token too, so both are kept. */
export function refreshTokens(deps: TokenEndpointDeps, refreshToken: string): Promise<OAuthTokens> {
  return requestTokens(deps, "refreshing the tracker token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
  });
}

async function requestTokens(
  deps: TokenEndpointDeps,
  doing: string,
  grant: Record<string, string>,
): Promise<OAuthTokens> {
  const body = new URLSearchParams({
    ...grant,
    client_id: deps.settings.clientId,
    client_secret: deps.settings.clientSecret,
  });
  let response: Response;
  try {
    response = await deps.fetch(`${deps.settings.apiUrl}${LINEAR_PATHS.token}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: body.toString(),
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
    });
  } catch (error) {
    throw new TrackerApiError(
      `${doing} failed: the tracker at ${deps.settings.apiUrl} cannot be reached (check --tracker-api-url)`,
      { cause: error },
    );
  }
  const json = await response.json().catch(() => undefined);
  if (!response.ok) {
    const refusal = TokenRefusal.safeParse(json);
    const what = refusal.success
      ? `${refusal.data.error}${refusal.data.error_description ? `: ${refusal.data.error_description}` : ""}`
      : `HTTP ${response.status}`;
    throw new TrackerApiError(`${doing} failed: the tracker answered ${what}`, {
      status: response.status,
      trackerCode: refusal.success ? refusal.data.error : undefined,
    });
  }
  const answer = TokenAnswer.safeParse(json);
  if (!answer.success)
    throw new TrackerApiError(`${doing} failed: the tracker's answer holds no access token`, {
      status: response.status,
    });
  return {
    accessToken: answer.data.access_token,
    refreshToken: answer.data.refresh_token ?? null,
    expiresAtMs:
      answer.data.expires_in === undefined ? null : deps.now().getTime() + answer.data.expires_in * 1000,
  };
}
