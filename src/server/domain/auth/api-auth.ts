// Who is calling the public API: a personal access token or an access token from a browser sign-in (401
// `invalid_token` when missing, malformed, unknown, expired or revoked, with a reason saying what to do) and, per
// workspace route, the membership read on every request (404 `not_found` when the caller is not a member, never
// 403). Both kinds are one indexed read by hash; a sign-in's token never reaches the provider here.

import type { Store } from "../../store/store.js";
import { domainError } from "../errors.js";
import { PERSONAL_TOKEN_PREFIX, readBearerToken } from "./personal-token.js";
import { type AuthenticatedToken, lookUpPersonalToken } from "./personal-tokens-store.js";
import type { ResourceKind } from "./sign-in-terms.js";
import { lookUpSignInToken } from "./sign-ins.js";
import { type Membership, membershipOf, type User } from "./users.js";

const REASONS = {
  missing: "send a personal access token as Authorization: Bearer btn_… or sign in with `baton login`",
  unknown: "the token is unknown or malformed; create a new one or run `baton login`",
  expired: "the token has expired; create a new one",
  revoked: "the token was revoked; create a new one",
} as const;

const SIGN_IN_REASONS = {
  unknown: REASONS.unknown,
  expired: "the browser sign-in has passed its 90 days; run `baton login` to sign in again",
  idle: "the browser sign-in went unused for 30 days; run `baton login` to sign in again",
  ended: "the browser sign-in was ended (disconnected or logged out); run `baton login` to sign in again",
  token_expired:
    "the access token has expired (they last an hour): refresh it with the sign-in's refresh token",
} as const;

/** An MCP client signs in again through its own connector, not with the `baton` command. */
const signInReason = (reason: string, resource: ResourceKind): string =>
  resource === "mcp"
    ? reason
        .replace("browser sign-in", "app's sign-in")
        .replace("run `baton login` to sign in again", "connect the app again")
    : reason;

/** An access token of the authorization server: opaque, 256 bits base64url (oidc-provider's format). */
const SIGN_IN_TOKEN = /^[A-Za-z0-9_-]{40,100}$/;

function readSignInToken(header: string | null): string | null {
  const token = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? "")?.[1];
  return token && !token.startsWith(PERSONAL_TOKEN_PREFIX) && SIGN_IN_TOKEN.test(token) ? token : null;
}

/** What a caller without a token is told, per resource: the MCP endpoint's callers sign in with OAuth. */
const MISSING: Record<ResourceKind, string> = {
  api: REASONS.missing,
  mcp: "send a personal access token as Authorization: Bearer btn_… or sign in with OAuth",
};

/**
 * The caller of `resource`: a personal access token (good on every resource), or an access token of the
 * authorization server issued for this very resource (RFC 8707): a token bound to `/v1` is refused on `/v1/mcp`
 * and the other way round, as `unknown`.
 */
export async function authenticateApiToken(
  db: Store,
  authorization: string | null,
  nowMs: number,
  resource: ResourceKind = "api",
): Promise<AuthenticatedToken> {
  const token = readBearerToken(authorization);
  if (!token) {
    const signIn = readSignInToken(authorization);
    if (!signIn) throw domainError("invalid_token", authorization ? REASONS.unknown : MISSING[resource]);
    const looked = await lookUpSignInToken(db, signIn, resource, nowMs);
    if (looked.state !== "active")
      throw domainError("invalid_token", signInReason(SIGN_IN_REASONS[looked.state], resource));
    return { kind: "sign-in", tokenId: looked.grantId, user: looked.user };
  }
  const looked = await lookUpPersonalToken(db, token, nowMs);
  if (looked.state !== "active") throw domainError("invalid_token", REASONS[looked.state]);
  return looked.found;
}

export async function requireMembership(db: Store, user: User, workspaceId: string): Promise<Membership> {
  const membership = await membershipOf(db, user, workspaceId);
  if (!membership) throw domainError("not_found", "no such workspace; GET /v1/me lists yours");
  return membership;
}
