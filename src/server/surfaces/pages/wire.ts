// The pages' wire constants (server-rendered HTML on the public listener): where they live, the session cookie
// and the CSRF form field. Paths are absolute, as a browser sees them.
export const PAGES_BASE_PATH = "/dashboard";

export const PAGE_PATHS = {
  /** Asks for an e-mail address and sends a one-time sign-in link; `?next=` is where to go afterwards. */
  signIn: `${PAGES_BASE_PATH}/sign-in`,
  /** The link in the e-mail lands here: checks the one-time token, starts the session, redirects to `next`. */
  signInLink: `${PAGES_BASE_PATH}/sign-in/link`,
  /** After a sign-in whose `next` starts a flow (an install, …): says who is signed in; a click continues. */
  signInContinue: `${PAGES_BASE_PATH}/sign-in/continue`,
  signOut: `${PAGES_BASE_PATH}/sign-out`,
  /** The reference's `{dashboard_url}/tokens`: personal access tokens and connected apps. */
  tokens: `${PAGES_BASE_PATH}/tokens`,
} as const;

/** HttpOnly, SameSite=Lax, Secure when `--public-url` is https; holds a random session id whose hash the store keeps.
 * Named with the sessions' rules (domain/auth/web-sessions.ts): the authorization server reads it too, and may not
 * import pages. */
export { SESSION_COOKIE } from "../../domain/auth/web-sessions.js";
/** Every POST form carries the session's CSRF token in this field. */
export const CSRF_FIELD = "csrf";
/**
 * The sign-in pages' browser cookie: a random value naming this browser to the sign-in pages only (Path is theirs),
 * HttpOnly, SameSite=Lax. A link is bound to the browser that asked for it by the hash of this value, and the
 * sign-in forms carry a token derived from it (their CSRF token before any session exists).
 */
export const SIGN_IN_BROWSER_COOKIE = "baton_sign_in";
/** The confirmation form's field: present when the person pressed "Sign in as <address>" on the confirmation page. */
export const CONFIRM_FIELD = "confirm";
/** Fetch Metadata and Origin, read on the sign-in forms' POSTs to refuse requests sent by another site. */
export const FETCH_SITE_HEADER = "sec-fetch-site";
export const ORIGIN_HEADER = "origin";
