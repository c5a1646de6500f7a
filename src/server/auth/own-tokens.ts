// A signed-in person's own personal access tokens, as the tokens page shows and changes them: listed by name and
// last four (never the hash), created under an id the page's form chose (so a resubmitted form creates nothing
// twice), and revoked only when the token is theirs (another user's id is "not found" and changes nothing).
import { randomBytes } from "node:crypto";
import type { TokenLifetimeDays } from "../domain/limits.js";
import type { Database } from "../store/sqlite.js";
import { statement } from "../store/statements.js";
import { classifyToken, expiryFor, makePersonalToken, type TokenState } from "./personal-token.js";
import type { CreatedToken } from "./personal-tokens-store.js";
import type { User } from "./users.js";

export interface TokenSummary {
  id: string;
  name: string;
  lastFour: string;
  createdAt: string;
  expiresAt: string;
  state: Exclude<TokenState, "unknown">;
}

/** The user's tokens, newest first, with whether each still acts. */
export function listOwnTokens(db: Database, user: User, nowMs: number): TokenSummary[] {
  const rows = statement(
    db,
    `SELECT id, name, last_four, created_at, expires_at_ms, revoked_at_ms FROM personal_access_tokens
     WHERE email = ? ORDER BY created_at DESC, id`,
  ).all(user.email) as {
    id: string;
    name: string;
    last_four: string;
    created_at: string;
    expires_at_ms: number;
    revoked_at_ms: number | null;
  }[];
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    lastFour: row.last_four,
    createdAt: row.created_at,
    expiresAt: new Date(row.expires_at_ms).toISOString(),
    state: classifyToken({ expiresAtMs: row.expires_at_ms, revokedAtMs: row.revoked_at_ms }, nowMs) as
      | "active"
      | "expired"
      | "revoked",
  }));
}

/**
 * Creates the user's token under `id` (a fresh id the form carried). When a token with that id exists already
 * (the same form sent again: a reload of the page that showed the token) nothing is created: "already-created".
 */
export function createOwnToken(
  db: Database,
  user: User,
  input: { id: string; name: string; lifetimeDays: TokenLifetimeDays },
  now: Date,
  secret: Uint8Array = randomBytes(32),
): CreatedToken | "already-created" {
  const made = makePersonalToken(secret);
  const expiresAtMs = expiryFor(now.getTime(), input.lifetimeDays);
  const inserted = statement(
    db,
    `INSERT INTO personal_access_tokens (token_hash, email, name, expires_at_ms, created_at, id, last_four)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  ).run(made.hash, user.email, input.name, expiresAtMs, now.toISOString(), input.id, made.lastFour);
  if (inserted.changes === 0) return "already-created";
  return {
    id: input.id,
    token: made.token,
    name: input.name,
    lastFour: made.lastFour,
    email: user.email,
    createdAt: now.toISOString(),
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
}

export type RevokeOutcome = "revoked" | "already-revoked" | "not-found";

/** Revokes the user's own token at once; a token of anyone else is "not-found", exactly as a missing one. */
export function revokeOwnToken(db: Database, user: User, tokenId: string, nowMs: number): RevokeOutcome {
  const row = statement(
    db,
    "SELECT revoked_at_ms FROM personal_access_tokens WHERE id = ? AND email = ?",
  ).get(tokenId, user.email) as { revoked_at_ms: number | null } | undefined;
  if (!row) return "not-found";
  if (row.revoked_at_ms !== null) return "already-revoked";
  statement(
    db,
    "UPDATE personal_access_tokens SET revoked_at_ms = ? WHERE id = ? AND email = ? AND revoked_at_ms IS NULL",
  ).run(nowMs, tokenId, user.email);
  return "revoked";
}

/** One token of the user's, for the revoke confirmation; undefined for anyone else's. */
export function findOwnToken(
  db: Database,
  user: User,
  tokenId: string,
  nowMs: number,
): TokenSummary | undefined {
  return listOwnTokens(db, user, nowMs).find((token) => token.id === tokenId);
}
