// The e-mailed link's pages. GET shows a button (a POST, so that mail scanners fetching the link do not use it
// up); the POST starts the web session. A link is bound to the browser that asked for it (sign-in-browser.ts): in
// that browser the button signs in; anywhere else the page asks "Sign in as <address>?" first, because someone may
// have sent you a link to their own account (login CSRF, issue 35 A.2). The POST must come from this page: another
// site's request is refused (request-site.ts) and the form's token must match this browser's cookie. After the
// sign-in the browser goes to `next`, or to the continue page when `next` starts a flow (post-sign-in.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { User } from "../../domain/auth/users.js";
import type { ServerEnv } from "../http/surface.js";
import type { PagesDeps } from "./deps.js";
import { type Html, html } from "./html.js";
import { renderPage } from "./layout.js";
import { renderMessagePage } from "./message-page.js";
import { landingAfterSignIn } from "./post-sign-in.js";
import { judgeRequestSite } from "./request-site.js";
import { sessionCookieSecure, startWebSession } from "./session.js";
import {
  browserFormTokenFor,
  browserHashOf,
  ensureBrowser,
  provenBrowser,
  signInBrowserCookie,
} from "./sign-in-browser.js";
import { peekSignInLink, redeemSignInLink } from "./sign-in-links.js";
import { CONFIRM_FIELD, CSRF_FIELD, PAGE_PATHS } from "./wire.js";

const CONFIRMED = "yes";

/** 403: a sign-in form posted by a page on another site. */
export const anotherSitePage = (): string =>
  renderMessagePage({
    title: "Sign-in refused: the request came from another site",
    message: `Sign-in forms work only from this service's own pages. If a page on another site sent you here, it may have tried to sign you in to someone else's account: nothing happened. To sign in, open the link from your e-mail, or ask for a new one at ${PAGE_PATHS.signIn}.`,
  });

const expiredForm = (): string =>
  renderMessagePage({
    title: "This sign-in form has expired",
    message: `The form did not come from this browser's copy of the sign-in page (or this browser does not keep cookies for this service). Open the link from your e-mail again; if that does not help, ask for a new one at ${PAGE_PATHS.signIn}.`,
  });

const invalidLink = (state: string): string =>
  renderMessagePage({
    title: "This sign-in link does not work",
    message: `The link ${state === "used" ? "was already used" : state === "expired" ? "has expired" : "is not known"}. Request a new link from the sign-in page (${PAGE_PATHS.signIn}).`,
  });

function linkForm(token: string, browser: string, extra: Html, button: Html): Html {
  return html`<form method="post" action="${PAGE_PATHS.signInLink}">
<input type="hidden" name="token" value="${token}">
<input type="hidden" name="${CSRF_FIELD}" value="${browserFormTokenFor(browser)}">${extra}
<button type="submit" class="primary">${button}</button></form>`;
}

/** The page for a link opened where it was asked for: one button. */
const signInPage = (token: string, browser: string, email: string): string =>
  renderPage({
    title: "Sign in to Baton",
    body: html`<p>Sign in as <strong>${email}</strong>.</p>
${linkForm(token, browser, html``, html`Sign in`)}`,
  });

/** The page for a link opened in another browser than the one that asked for it (or asked for by no browser). */
const confirmPage = (token: string, browser: string, email: string): string =>
  renderPage({
    title: `Sign in as ${email}?`,
    body: html`<p>This sign-in link was not asked for in this browser.</p>
<p>Sign in only if <strong>${email}</strong> is your address and you asked for this link yourself. Someone who
sends you a link to their own account could otherwise have you work in it, and what you connect or approve
there would be theirs.</p>
${linkForm(token, browser, html`<input type="hidden" name="${CONFIRM_FIELD}" value="${CONFIRMED}">`, html`Sign in as ${email}`)}`,
  });

export function addSignInLinkRoutes(
  app: OpenAPIHono<ServerEnv<{ webUser: User; csrfToken: string }>>,
  deps: PagesDeps,
  ownOrigins: (requestUrl: string) => string[],
): void {
  app.get(PAGE_PATHS.signInLink, async (c) => {
    const token = c.req.query("token") ?? "";
    const browser = ensureBrowser(c, sessionCookieSecure(deps.capability));
    const link = await peekSignInLink(deps.db, token, deps.now().getTime());
    if (link.state !== "valid") return c.html(invalidLink(link.state), 400);
    const here = link.browserHash === browserHashOf(browser);
    return c.html((here ? signInPage : confirmPage)(token, browser, link.email));
  });

  app.post(PAGE_PATHS.signInLink, async (c) => {
    if (judgeRequestSite(c.req.raw.headers, ownOrigins(c.req.url)) === "another-site")
      return c.html(anotherSitePage(), 403);
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token : "";
    const browser = provenBrowser(c, form[CSRF_FIELD]);
    if (!browser) return c.html(expiredForm(), 403);
    const nowMs = deps.now().getTime();
    const link = await peekSignInLink(deps.db, token, nowMs);
    if (link.state !== "valid") return c.html(invalidLink(link.state), 400);
    if (link.browserHash !== browserHashOf(browser) && form[CONFIRM_FIELD] !== CONFIRMED)
      return c.html(confirmPage(token, browser, link.email));
    const redeemed = await redeemSignInLink(deps.db, token, nowMs, browserHashOf(browser));
    if (redeemed.state !== "valid") return c.html(invalidLink(redeemed.state), 400);
    const secure = sessionCookieSecure(deps.capability);
    const session = await startWebSession(deps, redeemed.userId, secure);
    c.header("Set-Cookie", session.setCookie, { append: true });
    // Renewed: this browser is now recognised as this person's when it asks for their next link.
    c.header("Set-Cookie", signInBrowserCookie(browser, secure), { append: true });
    return c.redirect(landingAfterSignIn(redeemed.next), 303);
  });
}
