// Personal access tokens in the store: created for a user (shown once; only the sha256 and the last four
// characters are kept), looked up on every request, revoked at once.
import { randomBytes } from "node:crypto";
import { InputError } from "../../../errors.js";
import { newId } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import type { TokenLifetimeDays } from "../limits.js";
import { createOwnToken } from "./own-tokens.js";
import { classifyToken, expiryFor, hashPersonalToken, type TokenState } from "./personal-token.js";
import { findUserByEmail, type User } from "./users.js";

export interface CreatedToken {
  id: string;
  /** The full token: returned once, never stored. */
  token: string;
  name: string;
  lastFour: string;
  email: string;
  createdAt: string;
  expiresAt: string;
}

/** The operator's path (`baton admin token create`): a token for the member with this e-mail, under a fresh id. */
export async function createPersonalToken(
  db: Store,
  input: { email: string; name: string; lifetimeDays: TokenLifetimeDays },
  now: Date,
  secret: Uint8Array = randomBytes(32),
): Promise<CreatedToken> {
  const user = await findUserByEmail(db, input.email);
  if (!user) throw new InputError(`no user ${input.email}; add them as a workspace member first`);
  const created = await createOwnToken(
    db,
    user,
    { id: newId("pat"), name: input.name, lifetimeDays: input.lifetimeDays },
    now,
    secret,
  );
  // A fresh 128-bit id is never taken already.
  if (created === "already-created") throw new Error("a fresh token id was already taken");
  return created;
}

export interface AuthenticatedToken {
  /** The personal token's id, or the sign-in's grant id: the rate limit's key and what revocation ends. */
  tokenId: string;
  user: User;
  /** A personal access token, or an access token from a browser sign-in (the authorization server's). */
  kind: "personal" | "sign-in";
}

/** The token's user when the token is active, else why not (never which tokens exist). */
export async function lookUpPersonalToken(
  db: Store,
  token: string,
  nowMs: number,
): Promise<{ state: "active"; found: AuthenticatedToken } | { state: Exclude<TokenState, "active"> }> {
  const row = (await db.get(
    `SELECT t.id, t.expires_at_ms, t.revoked_at_ms, u.id AS user_id, u.email, u.name, u.codehost_login
     FROM personal_access_tokens t JOIN users u ON u.email = t.email WHERE t.token_hash = ?`,
    [hashPersonalToken(token)],
  )) as
    | {
        id: string;
        expires_at_ms: number;
        revoked_at_ms: number | null;
        user_id: string;
        email: string;
        name: string;
        codehost_login: string | null;
      }
    | undefined;
  const state = classifyToken(
    row && { expiresAtMs: row.expires_at_ms, revokedAtMs: row.revoked_at_ms },
    nowMs,
  );
  if (state !== "active" || !row) return { state: state === "active" ? "unknown" : state };
  return {
    state,
    found: {
      kind: "personal",
      tokenId: row.id,
      user: { id: row.user_id, email: row.email, name: row.name, codehostLogin: row.codehost_login },
    },
  };
}

/** Revokes a token at once; returns false when it was already revoked or does not exist. */
export async function revokePersonalToken(db: Store, tokenId: string, nowMs: number): Promise<boolean> {
  return (
    (
      await db.run(
        "UPDATE personal_access_tokens SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL",
        [nowMs, tokenId],
      )
    ).changes > 0
  );
}

/** A token named in the seed document: kept as its hash and last four, valid a year; re-seeding changes nothing. */
export async function seedPersonalToken(db: Store, email: string, token: string, now: Date): Promise<void> {
  await db.run(
    `INSERT INTO personal_access_tokens (token_hash, email, name, expires_at_ms, created_at, id, last_four)
     VALUES (?, ?, 'seed', ?, ?, ?, ?) ON CONFLICT (token_hash) DO UPDATE SET email = excluded.email, last_four = excluded.last_four`,
    [
      hashPersonalToken(token),
      email.toLowerCase(),
      expiryFor(now.getTime(), 365),
      now.toISOString(),
      newId("pat"),
      token.slice(-4),
    ],
  );
}
