// The dashboard's web sessions as rules over the store: how long one lasts (12 hours without a page view, 7 days
// after sign-in) and whether one is live now. The pages start and end them; the authorization server asks
// whether one is live before it issues a code (an authorization needs a live web session, issue 35 A.6).
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

/** The dashboard's session cookie (pages/wire.ts re-exports it). */
export const SESSION_COOKIE = "baton_session";

const HOUR_MS = 3_600_000;
export const SESSION_IDLE_MS = 12 * HOUR_MS;
export const SESSION_MAX_MS = 7 * 24 * HOUR_MS;

export interface LiveWebSession {
  userId: string;
  lastSeenAtMs: number;
}

/** The session the cookie's id names, when it is live at `nowMs` (not signed out, not idle, not too old). */
export async function findLiveWebSession(
  db: Store,
  sessionId: string,
  nowMs: number,
): Promise<LiveWebSession | undefined> {
  const row = (await db.get(
    "SELECT user_id, last_seen_at_ms, expires_at_ms FROM web_sessions WHERE id_hash = ?",
    [hashCredential(sessionId)],
  )) as { user_id: string; last_seen_at_ms: number; expires_at_ms: number } | undefined;
  if (!row || row.expires_at_ms <= nowMs || row.last_seen_at_ms + SESSION_IDLE_MS <= nowMs) return undefined;
  return { userId: row.user_id, lastSeenAtMs: row.last_seen_at_ms };
}
