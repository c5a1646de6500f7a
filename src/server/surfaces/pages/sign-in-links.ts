// One-time sign-in links: a random token e-mailed to a known user, stored as its hash, good once for 15 minutes,
// carrying where to go afterwards (a same-origin path only). At most LINKS_PER_WINDOW links per user per window.
import { randomBytes } from "node:crypto";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { PAGE_PATHS } from "./wire.js";

export const LINK_LIFETIME_MS = 15 * 60_000;
export const LINKS_PER_WINDOW = 3;
export const LINK_WINDOW_MS = 15 * 60_000;

/**
 * Where a sign-in may send the browser afterwards (pure): a path on this service, never another origin
 * (`//host`, `/\host`, `https://…`); anything else goes to the tokens page. The checks apply to the answer as
 * well as to the input, since resolving dot segments can turn a safe-looking path into a protocol-relative one
 * (`/.//evil.com` resolves to `//evil.com`); so one pass is enough and its answer is a fixed point.
 */
export function safeNextPath(next: string | undefined | null): string {
  const fallback = PAGE_PATHS.tokens;
  if (next === undefined || next === null || !isPlainPath(next)) return fallback;
  const parsed = URL.canParse(next, NEXT_BASE) ? new URL(next, NEXT_BASE) : undefined;
  if (parsed?.origin !== NEXT_BASE) return fallback;
  const resolved = parsed.pathname + parsed.search;
  return isPlainPath(resolved) ? resolved : fallback;
}

const NEXT_BASE = "http://baton.invalid";

/** A rooted path that no browser reads as naming a host: no `//` or `/\` start, no backslash or control character. */
function isPlainPath(path: string): boolean {
  return path.startsWith("/") && !path.startsWith("//") && !/[\u0000-\u001f\\]/.test(path);
}

export type IssuedLink = { state: "issued"; token: string } | { state: "throttled" };

export async function issueSignInLink(
  db: Store,
  userId: string,
  next: string,
  nowMs: number,
): Promise<IssuedLink> {
  const recent = (await db.get(
    "SELECT count(*) AS n FROM sign_in_links WHERE user_id = ? AND created_at_ms > ?",
    [userId, nowMs - LINK_WINDOW_MS],
  )) as { n: number };
  if (recent.n >= LINKS_PER_WINDOW) return { state: "throttled" };
  const token = randomBytes(32).toString("base64url");
  await db.run(
    "INSERT INTO sign_in_links (token_hash, user_id, next_path, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?)",
    [hashCredential(token), userId, safeNextPath(next), nowMs, nowMs + LINK_LIFETIME_MS],
  );
  return { state: "issued", token };
}

export type RedeemedLink =
  | { state: "valid"; userId: string; next: string }
  | { state: "used" | "expired" | "unknown" };

/** Uses the link up: the first caller gets `valid`, every later one `used`. */
export async function redeemSignInLink(db: Store, token: string, nowMs: number): Promise<RedeemedLink> {
  const hash = hashCredential(token);
  const row = (await db.get(
    "SELECT user_id, next_path, expires_at_ms, used_at_ms FROM sign_in_links WHERE token_hash = ?",
    [hash],
  )) as { user_id: string; next_path: string; expires_at_ms: number; used_at_ms: number | null } | undefined;
  if (!row) return { state: "unknown" };
  if (row.used_at_ms !== null) return { state: "used" };
  if (row.expires_at_ms <= nowMs) return { state: "expired" };
  const used = await db.run(
    "UPDATE sign_in_links SET used_at_ms = ? WHERE token_hash = ? AND used_at_ms IS NULL",
    [nowMs, hash],
  );
  if (used.changes === 0) return { state: "used" };
  return { state: "valid", userId: row.user_id, next: safeNextPath(row.next_path) };
}
