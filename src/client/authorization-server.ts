// What browser sign-in and its silent refresh share: an HTTP client for the service's authorization server whose
// refusals read as sign-in errors, its RFC 8414 metadata (checked to be this service's own), and the token
// endpoint's answer (RFC 6749 section 5.1). Tokens are returned, never printed or logged.
import * as z from "zod";
import { BatonError } from "../errors.js";
import { createHttpClient, type HttpClient } from "../net/http-client.js";

export const SIGN_IN_SCOPE = "baton";

const MetadataSchema = z.object({
  issuer: z.string().url(),
  authorization_endpoint: z.string().url(),
  token_endpoint: z.string().url(),
  registration_endpoint: z.string().url(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
});
export type AuthorizationServerMetadata = z.infer<typeof MetadataSchema>;

const TokenAnswerSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string(),
  expires_in: z.number().optional(),
  refresh_token: z.string().min(1).optional(),
});

/** An access token, when it stops working (if the service said), and the refresh token that renews it (if any). */
export interface IssuedTokens {
  accessToken: string;
  expiresAt: string | null;
  refreshToken: string | null;
}

export const signInError = (message: string, cause?: unknown) =>
  new BatonError("unauthorised", message, cause === undefined ? {} : { cause });

export function oauthClient(origin: string): HttpClient {
  return createHttpClient({
    baseUrl: origin,
    policy: { retries: 2 },
    classify: ({ status, body, doing }) => {
      const parsed = z
        .object({ error: z.string(), error_description: z.string().optional() })
        .safeParse(body);
      const why = parsed.success
        ? `${parsed.data.error}: ${parsed.data.error_description ?? ""}`
        : `HTTP ${status}`;
      return new BatonError("unauthorised", `${doing} failed (${why.trim()}); run \`baton login\` again`, {
        details: { status, wireError: parsed.success ? parsed.data.error : undefined },
      });
    },
    unreachable: (doing, code, cause) =>
      new BatonError(
        "network",
        `${doing}: cannot reach the service (${code ?? "no answer"}); check --api-url`,
        { cause },
      ),
  });
}

/** The service's RFC 8414 metadata; its issuer must be the service's own address. */
export async function discoverAuthorizationServer(
  http: HttpClient,
  apiUrl: string,
): Promise<AuthorizationServerMetadata> {
  const meta = MetadataSchema.safeParse(
    (
      await http.request({
        method: "GET",
        path: "/.well-known/oauth-authorization-server",
        doing: "reading the sign-in settings",
      })
    ).body,
  );
  if (!meta.success || meta.data.issuer.replace(/\/+$/, "") !== apiUrl)
    throw signInError(`${apiUrl} does not offer browser sign-in; use \`baton login --token\` instead`);
  return meta.data;
}

/** The path and query of an endpoint the metadata names; it must be on the issuer's origin. */
export function pathOn(origin: string, endpoint: string): string {
  const url = new URL(endpoint);
  if (url.origin !== origin)
    throw signInError(`the service's metadata names ${url.origin}, not ${origin}; check --api-url`);
  return url.pathname + url.search;
}

/** Reads a token endpoint answer: a bearer access token, its lifetime, and a refresh token when one was issued. */
export function readTokenAnswer(body: unknown, nowMs: number): IssuedTokens {
  const token = TokenAnswerSchema.safeParse(body);
  if (!token.success || token.data.token_type.toLowerCase() !== "bearer")
    throw signInError("the service's token answer was malformed; run `baton login` again");
  return {
    accessToken: token.data.access_token,
    expiresAt:
      token.data.expires_in === undefined
        ? null
        : new Date(nowMs + token.data.expires_in * 1000).toISOString(),
    refreshToken: token.data.refresh_token ?? null,
  };
}
