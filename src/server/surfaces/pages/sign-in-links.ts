// One-time sign-in links: a random token e-mailed to a known user, stored as its hash, good once for 15 minutes,
// carrying where to go afterwards (a same-origin path only), bound to the browser that asked for it when its form
// proved which one (sign-in-browser.ts). At most LINKS_PER_WINDOW links per user per window, counted per source.
import { randomBytes } from "node:crypto";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { PAGE_PATHS } from "./wire.js";

export const LINK_LIFETIME_MS = 15 * 60_000;
export const LINKS_PER_WINDOW = 3;
export const LINK_WINDOW_MS = 15 * 60_000;
/** How long a browser that used one of an address's links is recognised as that person's (A.7's own count). */
export const KNOWN_BROWSER_MS = 30 * 24 * 3_600_000;

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

/**
 * Issues a link for `userId`, bound to `browserHash` (the hash of the asking browser's sign-in cookie, when its
 * form proved it) or to no browser. Links are counted per source (issue 35, A.7): a browser that has used one of
 * this address's links in the last KNOWN_BROWSER_MS has LINKS_PER_WINDOW of its own; every other request (a new
 * browser, a script, anyone who knows the address) shares the address's other LINKS_PER_WINDOW. So nobody can
 * stop a person's own browser getting its link by asking for theirs, and the address still gets at most
 * LINKS_PER_WINDOW mails per window from strangers.
 */
export async function issueSignInLink(
  db: Store,
  input: { userId: string; next: string; nowMs: number; browserHash?: string | undefined },
): Promise<IssuedLink> {
  const { userId, nowMs } = input;
  const browserHash = input.browserHash ?? null;
  const known = browserHash !== null && (await isKnownBrowser(db, userId, browserHash, nowMs));
  const recent = (await (known
    ? db.get(
        "SELECT count(*) AS n FROM sign_in_links WHERE user_id = ? AND created_at_ms > ? AND known_browser = 1 AND browser_hash = ?",
        [userId, nowMs - LINK_WINDOW_MS, browserHash],
      )
    : db.get(
        "SELECT count(*) AS n FROM sign_in_links WHERE user_id = ? AND created_at_ms > ? AND known_browser = 0",
        [userId, nowMs - LINK_WINDOW_MS],
      ))) as { n: number | string };
  if (Number(recent.n) >= LINKS_PER_WINDOW) return { state: "throttled" };
  const token = randomBytes(32).toString("base64url");
  await db.run(
    "INSERT INTO sign_in_links (token_hash, user_id, next_path, created_at_ms, expires_at_ms, browser_hash, known_browser) VALUES (?, ?, ?, ?, ?, ?, ?)",
    [
      hashCredential(token),
      userId,
      safeNextPath(input.next),
      nowMs,
      nowMs + LINK_LIFETIME_MS,
      browserHash,
      known ? 1 : 0,
    ],
  );
  return { state: "issued", token };
}

/** Whether this browser has used a link of this user's within KNOWN_BROWSER_MS. */
async function isKnownBrowser(
  db: Store,
  userId: string,
  browserHash: string,
  nowMs: number,
): Promise<boolean> {
  const row = await db.get(
    "SELECT 1 AS known FROM sign_in_links WHERE user_id = ? AND used_by_browser_hash = ? AND used_at_ms > ? LIMIT 1",
    [userId, browserHash, nowMs - KNOWN_BROWSER_MS],
  );
  return row !== undefined;
}

export type PeekedLink =
  | { state: "valid"; userId: string; email: string; browserHash: string | null }
  | { state: "used" | "expired" | "unknown" };

/** What a link is, without using it up: the link page shows its address and whether it was asked for here. */
export async function peekSignInLink(db: Store, token: string, nowMs: number): Promise<PeekedLink> {
  const row = (await db.get(
    `SELECT l.user_id, u.email, l.browser_hash, l.expires_at_ms, l.used_at_ms
       FROM sign_in_links l JOIN users u ON u.id = l.user_id WHERE l.token_hash = ?`,
    [hashCredential(token)],
  )) as
    | {
        user_id: string;
        email: string;
        browser_hash: string | null;
        expires_at_ms: number | string;
        used_at_ms: number | string | null;
      }
    | undefined;
  if (!row) return { state: "unknown" };
  if (row.used_at_ms !== null) return { state: "used" };
  if (Number(row.expires_at_ms) <= nowMs) return { state: "expired" };
  return { state: "valid", userId: row.user_id, email: row.email, browserHash: row.browser_hash };
}

export type RedeemedLink =
  | { state: "valid"; userId: string; next: string }
  | { state: "used" | "expired" | "unknown" };

/** Uses the link up, recording which browser used it: the first caller gets `valid`, every later one `used`. */
export async function redeemSignInLink(
  db: Store,
  token: string,
  nowMs: number,
  usedByBrowserHash: string,
): Promise<RedeemedLink> {
  const hash = hashCredential(token);
  const row = (await db.get(
    "SELECT user_id, next_path, expires_at_ms, used_at_ms FROM sign_in_links WHERE token_hash = ?",
    [hash],
  )) as
    | { user_id: string; next_path: string; expires_at_ms: number | string; used_at_ms: number | null }
    | undefined;
  if (!row) return { state: "unknown" };
  if (row.used_at_ms !== null) return { state: "used" };
  if (Number(row.expires_at_ms) <= nowMs) return { state: "expired" };
  const used = await db.run(
    "UPDATE sign_in_links SET used_at_ms = ?, used_by_browser_hash = ? WHERE token_hash = ? AND used_at_ms IS NULL",
    [nowMs, usedByBrowserHash, hash],
  );
  if (used.changes === 0) return { state: "used" };
  return { state: "valid", userId: row.user_id, next: safeNextPath(row.next_path) };
}
