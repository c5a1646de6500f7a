// THROWAWAY (tokens-page branch): the oauth helper owns this file and its real implementation (sessions in the
// store, sign-in by e-mailed link). This copy keeps the contract's signatures with the simplest thing that works
// (sessions in memory, per store) so the tokens page and its tests run; at merge the lead keeps theirs.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { findUserById } from "../auth/users.js";
import type { ServerDeps } from "../deps.js";
import type { PagesEnv } from "./env.js";
import { CSRF_FIELD, PAGE_PATHS, SESSION_COOKIE } from "./wire.js";

interface Session {
  userId: string;
  csrfToken: string;
}
const sessionsByStore = new WeakMap<object, Map<string, Session>>();

function sessionsOf(deps: ServerDeps): Map<string, Session> {
  let sessions = sessionsByStore.get(deps.db);
  if (!sessions) {
    sessions = new Map();
    sessionsByStore.set(deps.db, sessions);
  }
  return sessions;
}

export function startWebSession(
  deps: ServerDeps,
  userId: string,
  secure: boolean,
): { setCookie: string; cookie: string } {
  const id = randomBytes(32).toString("base64url");
  sessionsOf(deps).set(id, { userId, csrfToken: randomBytes(32).toString("base64url") });
  const cookie = `${SESSION_COOKIE}=${id}`;
  return {
    cookie,
    setCookie: `${cookie}; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`,
  };
}

export function requireWebSession(deps: ServerDeps): MiddlewareHandler<PagesEnv> {
  return createMiddleware<PagesEnv>(async (c, next) => {
    const id = getCookie(c, SESSION_COOKIE);
    const session = id ? sessionsOf(deps).get(id) : undefined;
    const user = session && findUserById(deps.db, session.userId);
    if (!session || !user) {
      const url = new URL(c.req.url);
      return c.redirect(`${PAGE_PATHS.signIn}?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    c.set("webUser", user);
    c.set("csrfToken", session.csrfToken);
    await next();
  });
}

export function verifyCsrf(): MiddlewareHandler<PagesEnv> {
  return createMiddleware<PagesEnv>(async (c, next) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const given = form[CSRF_FIELD];
    const expected = c.get("csrfToken");
    const ok =
      typeof given === "string" &&
      given.length === expected.length &&
      timingSafeEqual(Buffer.from(given), Buffer.from(expected));
    if (!ok)
      return c.text("The form has expired or came from another site: reload the page and try again.", 403);
    await next();
  });
}
