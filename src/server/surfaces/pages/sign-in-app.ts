// Sign-in by e-mailed one-time link: the form, the "check your e-mail" answer (the same for every address, so the
// page never tells whether an account exists), the link's pages (sign-in-link-routes.ts), the continue page a
// sign-in lands on when it was on its way into a flow, and sign-out.
import { getCookie } from "hono/cookie";
import { findUserByEmail, type User } from "../../domain/auth/users.js";
import { createSurface } from "../http/surface.js";
import { issuerOf } from "../oauth/provider.js";
import { endProviderSession, PROVIDER_SESSION_COOKIE } from "../oauth/provider-session.js";
import type { PagesDeps } from "./deps.js";
import { pageHeaders } from "./headers.js";
import { html } from "./html.js";
import { renderPage } from "./layout.js";
import { renderMessagePage } from "./message-page.js";
import { describeDestination } from "./post-sign-in.js";
import { judgeRequestSite } from "./request-site.js";
import {
  endWebSession,
  requireWebSession,
  sessionCookie,
  sessionCookieSecure,
  verifyCsrf,
} from "./session.js";
import { browserFormTokenFor, browserHashOf, ensureBrowser, provenBrowser } from "./sign-in-browser.js";
import { addSignInLinkRoutes, anotherSitePage } from "./sign-in-link-routes.js";
import { issueSignInLink, LINK_LIFETIME_MS, safeNextPath } from "./sign-in-links.js";
import { createSignInMailer, renderSignInEmail } from "./sign-in-mail.js";
import { CSRF_FIELD, PAGE_PATHS, SESSION_COOKIE } from "./wire.js";

const EMAIL = /^[^\s@]{1,200}@[^\s@]{1,200}$/;

export function createSignInApp(deps: PagesDeps) {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  const mailer = createSignInMailer(deps);
  // Scoped to the sign-in paths: this app is mounted at the root, where a bare use() would reach every route.
  app.use(`${PAGE_PATHS.signIn}/*`, pageHeaders());
  app.use(PAGE_PATHS.signIn, pageHeaders());
  app.use(PAGE_PATHS.signOut, pageHeaders());
  const notConfigured = () =>
    renderMessagePage({
      title: "Sign-in by e-mail is not configured",
      message:
        "This service cannot send e-mail, so it cannot send sign-in links. The operator must start baton serve with --smtp-url smtp://host:port, or, on this computer only, listen on loopback addresses only (127.0.0.1) so that each link is printed on the service's console (see the operator docs).",
    });

  /** The origins this service answers as: its public URL's and the request's own (a direct local request). */
  const ownOrigins = (requestUrl: string) => [new URL(issuerOf(deps)).origin, new URL(requestUrl).origin];

  // The form sets the browser's sign-in cookie and carries its token, so the link can be bound to this browser.
  app.get(PAGE_PATHS.signIn, (c) => {
    if (!mailer.configured()) return c.html(notConfigured(), 503);
    const next = safeNextPath(c.req.query("next"));
    const browser = ensureBrowser(c, sessionCookieSecure(deps.capability));
    return c.html(
      renderPage({
        title: "Sign in",
        body: html`<form method="post" action="${PAGE_PATHS.signIn}">
<p>${
          mailer.printed()
            ? "This service has no mail server and listens on this computer only: the link that signs you in once is printed on its console (the terminal running baton serve), not e-mailed."
            : "We will e-mail you a link that signs you in once."
        }</p>
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<input type="hidden" name="next" value="${next}">
<input type="hidden" name="${CSRF_FIELD}" value="${browserFormTokenFor(browser)}">
<button type="submit">E-mail me a sign-in link</button></form>`,
      }),
    );
  });

  app.post(PAGE_PATHS.signIn, async (c) => {
    if (!mailer.configured()) return c.html(notConfigured(), 503);
    // Another site's page could otherwise bind its owner's link to this browser (then no confirmation is shown).
    if (judgeRequestSite(c.req.raw.headers, ownOrigins(c.req.url)) === "another-site")
      return c.html(anotherSitePage(), 403);
    const form = await c.req.parseBody();
    const email = typeof form.email === "string" ? form.email.trim() : "";
    if (!EMAIL.test(email))
      return c.html(
        renderMessagePage({
          title: "Check the address",
          message: "Enter an e-mail address such as you@example.com.",
        }),
        400,
      );
    const next = safeNextPath(typeof form.next === "string" ? form.next : undefined);
    // A request whose form does not prove its browser (a script, cookies off) gets an unbound link.
    const browser = provenBrowser(c, form[CSRF_FIELD]);
    const user = await findUserByEmail(deps.db, email);
    if (user) {
      const issued = await issueSignInLink(deps.db, {
        userId: user.id,
        next,
        nowMs: deps.now().getTime(),
        browserHash: browser === undefined ? undefined : browserHashOf(browser),
      });
      if (issued.state === "issued") {
        const link = `${issuerOf(deps)}${PAGE_PATHS.signInLink}?token=${issued.token}`;
        mailer.send({
          to: user.email,
          link,
          ...renderSignInEmail({ link, minutes: LINK_LIFETIME_MS / 60_000 }),
        });
      } else deps.logger.info({ userId: user.id }, "sign-in link not sent: too many asked for");
    }
    // Names the address as typed (a typo shows here), and says the same whether or not it has an account.
    return c.html(
      renderMessagePage(
        mailer.printed()
          ? {
              title: "Look at the service's console",
              message: `If ${email} belongs to a Baton user, a link that signs in as ${email} is printed on the console of baton serve (its standard error), one line per link. It works once, for 15 minutes.`,
            }
          : {
              title: "Check your e-mail",
              message: `If ${email} belongs to a Baton user, a link that signs in as ${email} is on its way there. It works once, for 15 minutes. Nothing arrived, or not your address? Ask for another link in a few minutes.`,
            },
      ),
    );
  });

  addSignInLinkRoutes(app, deps, ownOrigins);

  // A click, with who is signed in in plain sight, between a sign-in and a flow that acts on a GET (post-sign-in.ts).
  app.get(PAGE_PATHS.signInContinue, requireWebSession(deps), (c) => {
    const next = safeNextPath(c.req.query("next"));
    const user = c.get("webUser");
    return c.html(
      renderPage({
        title: "Continue?",
        user,
        csrfToken: c.get("csrfToken"),
        body: html`<p>You are signed in as <strong>${user.email}</strong>.</p>
<p>Before you signed in, a page asked to go on to <code>${next}</code>, which ${describeDestination(next)}.</p>
<p>Continue only if you started this yourself, just now, and this is your account.</p>
<p><a href="${next}">Continue</a> · <a href="${PAGE_PATHS.tokens}">Go to your settings instead</a></p>`,
      }),
    );
  });

  // Sign-out ends the session in the store (the cookie alone would outlive a browser's "clear").
  app.post(PAGE_PATHS.signOut, requireWebSession(deps), verifyCsrf(), async (c) => {
    const id = getCookie(c, SESSION_COOKIE);
    if (id) await endWebSession(deps, id);
    // The authorization server's session in this browser ends with it (issue 35 A.6).
    const providerSession = getCookie(c, PROVIDER_SESSION_COOKIE);
    if (providerSession) await endProviderSession(deps.db, providerSession);
    c.header("Set-Cookie", sessionCookie("", sessionCookieSecure(deps.capability), 0));
    return c.redirect(PAGE_PATHS.signIn, 303);
  });

  return app;
}
