// The pages' wire constants (server-rendered HTML on the public listener): where they live, the session cookie
// and the CSRF form field. Paths are absolute, as a browser sees them.
export const PAGES_BASE_PATH = "/dashboard";

export const PAGE_PATHS = {
  /** Asks for an e-mail address and sends a one-time sign-in link; `?next=` is where to go afterwards. */
  signIn: `${PAGES_BASE_PATH}/sign-in`,
  /** The link in the e-mail lands here: checks the one-time token, starts the session, redirects to `next`. */
  signInLink: `${PAGES_BASE_PATH}/sign-in/link`,
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
