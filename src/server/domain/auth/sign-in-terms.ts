// What a browser sign-in is bound to and how long it lasts (reference section 2 "Access token" and 8): the
// authorization server's wire (surfaces/oauth/wire.ts) re-exports these; the sign-ins' rules read them here.

/** Resources a token may be bound to (RFC 8707), as paths under the service URL. */
export const RESOURCES = { api: "/v1", mcp: "/v1/mcp" } as const;
export type ResourceKind = keyof typeof RESOURCES;

const DAY_MS = 86_400_000;
export const SIGN_IN_LIFETIME_MS = 90 * DAY_MS;
export const SIGN_IN_IDLE_MS = 30 * DAY_MS;
/** An access token of a sign-in lasts an hour (OAuth 2.1, RFC 9700 for public clients); the app refreshes it with
 * the sign-in's refresh token, rotated on every use, for as long as the sign-in lasts. */
export const ACCESS_TOKEN_LIFETIME_MS = 3_600_000;
/** Last use is written at most this often per sign-in: the API's hot path stays a read. */
export const LAST_USE_GRANULARITY_MS = 60_000;
