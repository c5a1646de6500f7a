// The web session of the pages: a random id in an HttpOnly cookie, stored as its hash, ending after 12 hours
// without a page view or 7 days after sign-in, whichever comes first. Each session's CSRF token is derived from
// its id (so it is never stored) and every POST form must carry it. Only a session cookie authenticates a page;
// a bearer token never does, and the cookie never authenticates the API (the API reads Authorization only).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { findUserById, type User } from "../../domain/auth/users.js";
import { findLiveWebSession, SESSION_IDLE_MS, SESSION_MAX_MS } from "../../domain/auth/web-sessions.js";
import type { CapabilitySettings } from "../../domain/capability/settings.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { PagesDeps } from "./deps.js";
import type { PagesEnv } from "./env.js";
import { PageRefusal } from "./error-page.js";
import { renderMessagePage } from "./message-page.js";
import { CSRF_FIELD, PAGE_PATHS, SESSION_COOKIE } from "./wire.js";

export { SESSION_IDLE_MS, SESSION_MAX_MS };

const TOUCH_GRANULARITY_MS = 60_000;

/** The CSRF token of a session (derived from its id, never stored). */
export const csrfTokenFor = (sessionId: string): string =>
  createHash("sha256").update(`baton csrf\0${sessionId}`).digest("base64url");

/** The Set-Cookie value for a session id (pure): HttpOnly, SameSite=Lax, Path=/, Secure when the service is https. */
export function sessionCookie(sessionId: string, secure: boolean, maxAgeSeconds: number): string {
  return [
    `${SESSION_COOKIE}=${sessionId}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAgeSeconds}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/**
 * Whether the session cookie carries Secure: exactly when the service's public URL (`--public-url`, else the public
 * listener's own URL) is https. Never the request's Host or scheme: a client chooses its Host, and a TLS front that
 * forwards `Host: 127.0.0.1` would otherwise get a cookie without Secure (and an http service named by an
 * https-looking Host one that browsers refuse to store).
 */
export function sessionCookieSecure(capability: CapabilitySettings | undefined): boolean {
  return new URL(capability?.serviceUrl ?? "http://127.0.0.1").protocol === "https:";
}

export async function startWebSession(
  deps: PagesDeps,
  userId: string,
  secure: boolean,
): Promise<{ setCookie: string; cookie: string }> {
  const id = randomBytes(32).toString("base64url");
  const nowMs = deps.now().getTime();
  await deps.db.run(
    "INSERT INTO web_sessions (id_hash, user_id, created_at_ms, last_seen_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?)",
    [hashCredential(id), userId, nowMs, nowMs, nowMs + SESSION_MAX_MS],
  );
  return { setCookie: sessionCookie(id, secure, SESSION_MAX_MS / 1000), cookie: `${SESSION_COOKIE}=${id}` };
}

/** Ends the session the cookie names (sign-out); unknown ids are ignored. */
export async function endWebSession(deps: PagesDeps, sessionId: string): Promise<void> {
  await deps.db.run("DELETE FROM web_sessions WHERE id_hash = ?", [hashCredential(sessionId)]);
}

/** The signed-in user of the request's session cookie and its CSRF token (the view counts), or undefined. */
export async function readWebSession(
  deps: PagesDeps,
  c: Context,
): Promise<{ user: User; csrfToken: string } | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  const nowMs = deps.now().getTime();
  const live = id ? await findLiveWebSession(deps.db, id, nowMs) : undefined;
  const user = await (live ? findUserById(deps.db, live.userId) : undefined);
  if (!user || !id || !live) return undefined;
  if (nowMs - live.lastSeenAtMs >= TOUCH_GRANULARITY_MS)
    await deps.db.run("UPDATE web_sessions SET last_seen_at_ms = ? WHERE id_hash = ?", [
      nowMs,
      hashCredential(id),
    ]);
  return { user, csrfToken: csrfTokenFor(id) };
}

export function requireWebSession(deps: PagesDeps): MiddlewareHandler<PagesEnv> {
  return createMiddleware<PagesEnv>(async (c, next) => {
    const session = await readWebSession(deps, c);
    if (!session) {
      const url = new URL(c.req.url);
      return c.redirect(`${PAGE_PATHS.signIn}?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    c.set("webUser", session.user);
    c.set("csrfToken", session.csrfToken);
    await next();
  });
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const FORM_EXPIRED = {
  title: "This form has expired",
  message:
    "The form was missing its security token or it did not match your session. Reload the page and try again.",
};

/**
 * Refuses a POST whose form lacks the session's CSRF token. `thrown`: the refusal is thrown (403), for a sub-app
 * whose error handler shows it in its own frame (the dashboard's, the tokens page's); otherwise a bare page.
 */
export function verifyCsrf(options: { thrown?: boolean } = {}): MiddlewareHandler<PagesEnv> {
  return createMiddleware<PagesEnv>(async (c, next) => {
    const form = await c.req.parseBody();
    const sent = form[CSRF_FIELD];
    if (typeof sent !== "string" || !sameToken(sent, c.get("csrfToken"))) {
      if (options.thrown)
        throw new PageRefusal(403, WIRE_ERRORS.forbidden, FORM_EXPIRED.message, FORM_EXPIRED.title);
      return c.html(renderMessagePage(FORM_EXPIRED), 403);
    }
    await next();
  });
}
