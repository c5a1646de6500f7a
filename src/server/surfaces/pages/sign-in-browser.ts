// The sign-in pages' browser cookie (SIGN_IN_BROWSER_COOKIE): a random value set by the sign-in form and the link
// page, so that a link asked for in this browser is bound to it (the store keeps the value's hash with the link)
// and the sign-in forms carry a token derived from it (the CSRF token of a browser that has no session yet). It is
// not a credential: alone it signs nobody in. It lives for KNOWN_BROWSER_MS (each sign-in page view renews it), so
// a browser that has signed in as an address is recognised when it asks for that address's next link.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { hashCredential } from "../../primitives/tokens.js";
import { KNOWN_BROWSER_MS } from "./sign-in-links.js";
import { PAGE_PATHS, SIGN_IN_BROWSER_COOKIE } from "./wire.js";

const VALUE = /^[A-Za-z0-9_-]{43}$/;

/** The Set-Cookie value (pure): HttpOnly, SameSite=Lax, sent to the sign-in pages only, Secure unless on loopback. */
export function signInBrowserCookie(value: string, secure: boolean): string {
  return [
    `${SIGN_IN_BROWSER_COOKIE}=${value}`,
    `Path=${PAGE_PATHS.signIn}`,
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${KNOWN_BROWSER_MS / 1000}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** The token the sign-in forms carry for this browser (derived, never stored). */
export const browserFormTokenFor = (value: string): string =>
  createHash("sha256").update(`baton sign-in form\0${value}`).digest("base64url");

/** What the store keeps of a browser value (links' binding, the browser that used a link). */
export const browserHashOf = (value: string): string => hashCredential(value);

/** The browser's value as sent, when well-formed. */
export function browserOf(c: Context): string | undefined {
  const value = getCookie(c, SIGN_IN_BROWSER_COOKIE);
  return value && VALUE.test(value) ? value : undefined;
}

/** The browser's value, minting one when it has none; (re)sets the cookie either way, renewing its lifetime. */
export function ensureBrowser(c: Context, secure: boolean): string {
  const value = browserOf(c) ?? randomBytes(32).toString("base64url");
  c.header("Set-Cookie", signInBrowserCookie(value, secure), { append: true });
  return value;
}

/**
 * The browser a sign-in form's POST proves it came from: its cookie, when the form's token was derived from it.
 * A page on another site can neither read the token nor (SameSite=Lax) make the browser send the cookie with its POST.
 */
export function provenBrowser(c: Context, sentToken: unknown): string | undefined {
  const value = browserOf(c);
  if (!value || typeof sentToken !== "string") return undefined;
  const expected = Buffer.from(browserFormTokenFor(value));
  const sent = Buffer.from(sentToken);
  return sent.length === expected.length && timingSafeEqual(sent, expected) ? value : undefined;
}
