// Personal access tokens `btn_<secret>` as plain data: making one from random bytes, reading one from an
// Authorization header, and deciding whether a stored token still acts. No store, clock or randomness here.
import { createHash } from "node:crypto";
import { TOKEN_LIFETIME_DAYS, type TokenLifetimeDays } from "../limits.js";

export const PERSONAL_TOKEN_PREFIX = "btn_";
/** 32 random bytes base64url (43 characters); seeded tokens may be any 16 to 200 of the same characters. */
export const PERSONAL_TOKEN_PATTERN = /^btn_[A-Za-z0-9_-]{16,200}$/;
const DAY_MS = 86_400_000;

export interface NewPersonalToken {
  token: string;
  hash: string;
  lastFour: string;
}

export const hashPersonalToken = (token: string): string =>
  createHash("sha256").update(token, "utf8").digest("hex");

export function makePersonalToken(secret: Uint8Array): NewPersonalToken {
  if (secret.length < 32) throw new Error("a personal access token needs 32 random bytes");
  const token = `${PERSONAL_TOKEN_PREFIX}${Buffer.from(secret).toString("base64url")}`;
  return { token, hash: hashPersonalToken(token), lastFour: token.slice(-4) };
}

export function isTokenLifetime(days: number): days is TokenLifetimeDays {
  return (TOKEN_LIFETIME_DAYS as readonly number[]).includes(days);
}

export const expiryFor = (createdAtMs: number, days: TokenLifetimeDays): number =>
  createdAtMs + days * DAY_MS;

/** The token in `Authorization: Bearer btn_…`, or null when the header is missing or malformed. */
export function readBearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer ([^\s]+)$/i.exec(header.trim());
  const token = match?.[1];
  return token && PERSONAL_TOKEN_PATTERN.test(token) ? token : null;
}

export type TokenState = "active" | "unknown" | "expired" | "revoked";

export function classifyToken(
  row: { expiresAtMs: number; revokedAtMs: number | null } | undefined,
  nowMs: number,
): TokenState {
  if (!row) return "unknown";
  if (row.revokedAtMs !== null) return "revoked";
  if (row.expiresAtMs <= nowMs) return "expired";
  return "active";
}
