// Who is calling the public API: a personal access token (401 `invalid_token` when missing, malformed, unknown,
// expired or revoked, all alike) and, per workspace route, the membership read on every request (404
// `not_found` when the caller is not a member, never 403).
import { domainError } from "../domain/errors.js";
import type { Database } from "../store/sqlite.js";
import { readBearerToken } from "./personal-token.js";
import { type AuthenticatedToken, lookUpPersonalToken } from "./personal-tokens-store.js";
import { type Membership, membershipOf, type User } from "./users.js";

const REASONS = {
  missing: "send a personal access token as Authorization: Bearer btn_…",
  unknown: "the token is unknown or malformed; create a new one",
  expired: "the token has expired; create a new one",
  revoked: "the token was revoked; create a new one",
} as const;

export function authenticateApiToken(
  db: Database,
  authorization: string | null,
  nowMs: number,
): AuthenticatedToken {
  const token = readBearerToken(authorization);
  if (!token) throw domainError("invalid_token", authorization ? REASONS.unknown : REASONS.missing);
  const looked = lookUpPersonalToken(db, token, nowMs);
  if (looked.state !== "active") throw domainError("invalid_token", REASONS[looked.state]);
  return looked.found;
}

export function requireMembership(db: Database, user: User, workspaceId: string): Membership {
  const membership = membershipOf(db, user, workspaceId);
  if (!membership) throw domainError("not_found", "no such workspace; GET /v1/me lists yours");
  return membership;
}
