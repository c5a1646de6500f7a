// The security headers every page carries (pages are HTML on the public listener, read by a browser): no script
// (the dashboard's pages alone load their one script from our origin, which polls it), the one inline stylesheet
// allowed by its hash, never framed, no referrer leaving the service, and never stored by a cache (the tokens
// page shows a token once; no page is worth caching).
import { createHash } from "node:crypto";
import { createMiddleware } from "hono/factory";
import { STYLESHEET } from "./style.js";

const styleHash = createHash("sha256").update(STYLESHEET, "utf8").digest("base64");

export interface CspOptions {
  /** The dashboard: its script from our origin (`script-src 'self'`), which polls our origin (`connect-src`). */
  ownScript?: boolean;
}

/**
 * `form-action` limits where a form may post (and, in Chromium, where the answer may redirect): the approval
 * page, whose answer redirects to a native app's loopback address, passes those origins in `formActions`.
 */
export function contentSecurityPolicy(formActions: readonly string[] = [], options: CspOptions = {}): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    ...(options.ownScript ? ["script-src 'self'", "connect-src 'self'"] : []),
    "img-src 'self'",
    ["form-action 'self'", ...formActions].join(" "),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

export const PAGE_HEADERS = {
  "content-security-policy": contentSecurityPolicy(),
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "cross-origin-opener-policy": "same-origin",
} as const;

/**
 * Middleware for a pages sub-app: sets PAGE_HEADERS on every answer (pages, redirects and error pages). A handler
 * whose form must reach an origin known only per request (the approval page's app) sets its own policy, built by
 * contentSecurityPolicy, and that one is kept.
 */
export function pageHeaders(formActions: readonly string[] = [], options: CspOptions = {}) {
  const csp = contentSecurityPolicy(formActions, options);
  return createMiddleware(async (c, next) => {
    await next();
    const own = c.res.headers.get("content-security-policy");
    for (const [name, value] of Object.entries(PAGE_HEADERS)) c.res.headers.set(name, value);
    c.res.headers.set("content-security-policy", own ?? csp);
  });
}
