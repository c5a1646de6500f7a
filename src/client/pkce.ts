// RFC 7636 PKCE and the `state` of one browser sign-in, from random bytes the caller supplies (no randomness here).
import { createHash } from "node:crypto";

export interface SignInSecrets {
  verifier: string;
  challenge: string;
  state: string;
}

export function makeSignInSecrets(verifierBytes: Uint8Array, stateBytes: Uint8Array): SignInSecrets {
  if (verifierBytes.length < 32 || stateBytes.length < 16)
    throw new Error("PKCE needs 32 and 16 random bytes");
  const verifier = Buffer.from(verifierBytes).toString("base64url");
  return {
    verifier,
    challenge: createHash("sha256").update(verifier).digest("base64url"),
    state: Buffer.from(stateBytes).toString("base64url"),
  };
}

export interface AuthorizationUrlInput {
  authorizationEndpoint: string;
  clientId: string;
  redirectUri: string;
  resource: string;
  scope: string;
  secrets: SignInSecrets;
}

export function buildAuthorizationUrl(input: AuthorizationUrlInput): string {
  const url = new URL(input.authorizationEndpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", input.clientId);
  url.searchParams.set("redirect_uri", input.redirectUri);
  url.searchParams.set("scope", input.scope);
  url.searchParams.set("resource", input.resource);
  url.searchParams.set("code_challenge", input.secrets.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", input.secrets.state);
  return url.toString();
}

export type CallbackOutcome =
  | { kind: "code"; code: string }
  | { kind: "denied"; description: string }
  | { kind: "ignore"; why: string }
  | { kind: "fail"; why: string };

/**
 * Classifies a request to the loopback listener (pure): the authorization response must carry our `state` and the
 * issuer we discovered (RFC 9207); a request without our state is not ours and is ignored.
 */
export function classifyCallback(url: URL, expected: { state: string; issuer: string }): CallbackOutcome {
  if (url.pathname !== "/callback") return { kind: "ignore", why: "not the callback path" };
  const q = url.searchParams;
  if (q.get("state") !== expected.state)
    return { kind: "ignore", why: "the state does not match this sign-in" };
  if (q.get("iss") !== expected.issuer)
    return { kind: "fail", why: "the answer came from another authorization server (iss does not match)" };
  const error = q.get("error");
  if (error === "access_denied") return { kind: "denied", description: q.get("error_description") ?? "" };
  if (error)
    return {
      kind: "fail",
      why: `the service refused the sign-in: ${error} ${q.get("error_description") ?? ""}`.trim(),
    };
  const code = q.get("code");
  return code ? { kind: "code", code } : { kind: "fail", why: "the answer carried no authorization code" };
}
