// Sign-ins (one per grant of the authorization server): recorded when the provider issues an access token, read by
// hash on every API request, ended by Disconnect or DELETE /v1/me/token. Plain SQL over the store, no provider.
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import {
  LAST_USE_GRANULARITY_MS,
  type ResourceKind,
  SIGN_IN_IDLE_MS,
  SIGN_IN_LIFETIME_MS,
} from "./sign-in-terms.js";
import type { User } from "./users.js";

export interface IssuedAccessToken {
  token: string;
  grantId: string;
  userId: string;
  clientId: string;
  clientName: string;
  resourceKind: ResourceKind;
  expiresAtMs: number;
}

/**
 * Indexes a newly issued access token; the first token of a grant starts its sign-in, and a later one (a refresh)
 * is a use of it: an app that keeps refreshing is in use, and its 30 days unused start again.
 */
export async function recordAccessToken(db: Store, issued: IssuedAccessToken, nowMs: number): Promise<void> {
  await db.run(
    `INSERT INTO oauth_sign_ins (grant_id, user_id, client_id, client_name, created_at_ms, expires_at_ms, last_used_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (grant_id) DO UPDATE SET last_used_at_ms = excluded.last_used_at_ms
     WHERE oauth_sign_ins.ended_at_ms IS NULL`,
    [
      issued.grantId,
      issued.userId,
      issued.clientId,
      issued.clientName,
      nowMs,
      nowMs + SIGN_IN_LIFETIME_MS,
      nowMs,
    ],
  );
  await db.run(
    `INSERT INTO oauth_access_tokens (token_hash, grant_id, resource_kind, expires_at_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (token_hash) DO NOTHING`,
    [hashCredential(issued.token), issued.grantId, issued.resourceKind, issued.expiresAtMs],
  );
}

export async function forgetAccessToken(db: Store, token: string): Promise<void> {
  await db.run("DELETE FROM oauth_access_tokens WHERE token_hash = ?", [hashCredential(token)]);
}

/** `token_expired`: the sign-in lives on, but this hour-long access token is over: the app refreshes it. */
export type SignInState = "active" | "unknown" | "expired" | "idle" | "ended" | "token_expired";

export type SignInLookup =
  | { state: "active"; grantId: string; user: User }
  | { state: Exclude<SignInState, "active"> };

/** Classifies a sign-in row at `nowMs` (pure): ended, past 90 days, 30 days without use, or its access token over. */
export function classifySignIn(
  row: { expiresAtMs: number; lastUsedAtMs: number; endedAtMs: number | null; tokenExpiresAtMs: number },
  nowMs: number,
): Exclude<SignInState, "unknown"> {
  if (row.endedAtMs !== null) return "ended";
  if (row.expiresAtMs <= nowMs) return "expired";
  if (row.lastUsedAtMs + SIGN_IN_IDLE_MS <= nowMs) return "idle";
  if (row.tokenExpiresAtMs <= nowMs) return "token_expired";
  return "active";
}

/**
 * Whether a grant's sign-in may still be refreshed at `nowMs`: the chain of refresh tokens lasts as the sign-in
 * does (90 days, or 30 days unused; Disconnect ends it). A grant with no sign-in yet (its code not yet traded) is
 * "unknown".
 */
export async function signInStateOf(db: Store, grantId: string, nowMs: number): Promise<SignInState> {
  const row = (await db.get(
    "SELECT expires_at_ms, last_used_at_ms, ended_at_ms FROM oauth_sign_ins WHERE grant_id = ?",
    [grantId],
  )) as { expires_at_ms: number; last_used_at_ms: number; ended_at_ms: number | null } | undefined;
  if (!row) return "unknown";
  return classifySignIn(
    {
      expiresAtMs: row.expires_at_ms,
      lastUsedAtMs: row.last_used_at_ms,
      endedAtMs: row.ended_at_ms,
      tokenExpiresAtMs: Number.POSITIVE_INFINITY,
    },
    nowMs,
  );
}

/** The token's sign-in and user when it may act on `resource` now; records the use (at most once a minute). */
export async function lookUpSignInToken(
  db: Store,
  token: string,
  resource: ResourceKind,
  nowMs: number,
): Promise<SignInLookup> {
  const row = (await db.get(
    `SELECT t.grant_id, t.resource_kind, t.expires_at_ms AS token_expires_at_ms, s.expires_at_ms,
       s.last_used_at_ms, s.ended_at_ms, u.id AS user_id, u.email, u.name, u.codehost_login
     FROM oauth_access_tokens t JOIN oauth_sign_ins s ON s.grant_id = t.grant_id JOIN users u ON u.id = s.user_id
     WHERE t.token_hash = ?`,
    [hashCredential(token)],
  )) as
    | {
        grant_id: string;
        resource_kind: string;
        token_expires_at_ms: number;
        expires_at_ms: number;
        last_used_at_ms: number;
        ended_at_ms: number | null;
        user_id: string;
        email: string;
        name: string;
        codehost_login: string | null;
      }
    | undefined;
  if (!row || row.resource_kind !== resource) return { state: "unknown" };
  const state = classifySignIn(
    {
      expiresAtMs: row.expires_at_ms,
      lastUsedAtMs: row.last_used_at_ms,
      endedAtMs: row.ended_at_ms,
      tokenExpiresAtMs: row.token_expires_at_ms,
    },
    nowMs,
  );
  if (state !== "active") return { state };
  if (nowMs - row.last_used_at_ms >= LAST_USE_GRANULARITY_MS)
    await db.run("UPDATE oauth_sign_ins SET last_used_at_ms = ? WHERE grant_id = ?", [nowMs, row.grant_id]);
  return {
    state,
    grantId: row.grant_id,
    user: { id: row.user_id, email: row.email, name: row.name, codehostLogin: row.codehost_login },
  };
}

/**
 * Ends a sign-in at once: the sign-in is marked ended, its access tokens leave the index and every provider
 * artefact of the grant (grant, codes, tokens) is deleted. `userId` limits it to the user's own sign-ins.
 */
export async function endSignIn(
  db: Store,
  grantId: string,
  nowMs: number,
  userId?: string,
): Promise<boolean> {
  // The CAST types the parameter: PostgreSQL cannot type a bare `? IS NULL` ("could not determine data type").
  const ended = await db.run(
    `UPDATE oauth_sign_ins SET ended_at_ms = ? WHERE grant_id = ? AND ended_at_ms IS NULL
     AND (CAST(? AS TEXT) IS NULL OR user_id = ?)`,
    [nowMs, grantId, userId ?? null, userId ?? null],
  );
  if (ended.changes === 0) return false;
  await db.run("DELETE FROM oauth_access_tokens WHERE grant_id = ?", [grantId]);
  await db.run("DELETE FROM oauth_models WHERE grant_id = ?", [grantId]);
  return true;
}

/** Ends a grant whether or not its sign-in was recorded yet: the sign-in (if any) and every token of the grant go. */
export async function endGrant(db: Store, grantId: string, nowMs: number): Promise<void> {
  if (await endSignIn(db, grantId, nowMs)) return;
  await db.run("DELETE FROM oauth_access_tokens WHERE grant_id = ?", [grantId]);
  await db.run("DELETE FROM oauth_models WHERE grant_id = ?", [grantId]);
}

export interface SignInRow {
  grantId: string;
  clientName: string;
  createdAtMs: number;
  lastUsedAtMs: number;
  expiresAtMs: number;
}

/** The user's sign-ins still in effect at `nowMs`, newest first. */
export async function activeSignInsOf(db: Store, userId: string, nowMs: number): Promise<SignInRow[]> {
  const rows = (await db.all(
    `SELECT grant_id, client_name, created_at_ms, last_used_at_ms, expires_at_ms FROM oauth_sign_ins
     WHERE user_id = ? AND ended_at_ms IS NULL AND expires_at_ms > ? AND last_used_at_ms > ?
     ORDER BY created_at_ms DESC, grant_id`,
    [userId, nowMs, nowMs - SIGN_IN_IDLE_MS],
  )) as {
    grant_id: string;
    client_name: string;
    created_at_ms: number;
    last_used_at_ms: number;
    expires_at_ms: number;
  }[];
  return rows.map((r) => ({
    grantId: r.grant_id,
    clientName: r.client_name,
    createdAtMs: r.created_at_ms,
    lastUsedAtMs: r.last_used_at_ms,
    expiresAtMs: Math.min(r.expires_at_ms, r.last_used_at_ms + SIGN_IN_IDLE_MS),
  }));
}
