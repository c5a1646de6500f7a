// A signed-in person's own personal access tokens, as the tokens page shows and changes them: listed by name and
// last four (never the hash), created under an id the page's form chose (so a resubmitted form creates nothing
// twice), and revoked only when the token is theirs (another user's id is "not found" and changes nothing).
import { randomBytes } from "node:crypto";
import type { Store } from "../../store/store.js";
import type { TokenLifetimeDays } from "../limits.js";
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
export async function listOwnTokens(db: Store, user: User, nowMs: number): Promise<TokenSummary[]> {
  const rows = (await db.all(
    `SELECT id, name, last_four, created_at, expires_at_ms, revoked_at_ms FROM personal_access_tokens
     WHERE email = ? ORDER BY created_at DESC, id`,
    [user.email],
  )) as {
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
export async function createOwnToken(
  db: Store,
  user: User,
  input: { id: string; name: string; lifetimeDays: TokenLifetimeDays },
  now: Date,
  secret: Uint8Array = randomBytes(32),
): Promise<CreatedToken | "already-created"> {
  const made = makePersonalToken(secret);
  const expiresAtMs = expiryFor(now.getTime(), input.lifetimeDays);
  const inserted = await db.run(
    `INSERT INTO personal_access_tokens (token_hash, email, name, expires_at_ms, created_at, id, last_four)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    [made.hash, user.email, input.name, expiresAtMs, now.toISOString(), input.id, made.lastFour],
  );
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
export async function revokeOwnToken(
  db: Store,
  user: User,
  tokenId: string,
  nowMs: number,
): Promise<RevokeOutcome> {
  const row = (await db.get("SELECT revoked_at_ms FROM personal_access_tokens WHERE id = ? AND email = ?", [
    tokenId,
    user.email,
  ])) as { revoked_at_ms: number | null } | undefined;
  if (!row) return "not-found";
  if (row.revoked_at_ms !== null) return "already-revoked";
  await db.run(
    "UPDATE personal_access_tokens SET revoked_at_ms = ? WHERE id = ? AND email = ? AND revoked_at_ms IS NULL",
    [nowMs, tokenId, user.email],
  );
  return "revoked";
}

/** One token of the user's, for the revoke confirmation; undefined for anyone else's. */
export async function findOwnToken(
  db: Store,
  user: User,
  tokenId: string,
  nowMs: number,
): Promise<TokenSummary | undefined> {
  return (await listOwnTokens(db, user, nowMs)).find((token) => token.id === tokenId);
}
