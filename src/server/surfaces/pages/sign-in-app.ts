// Sign-in by e-mailed one-time link: the form, the "check your e-mail" answer (the same for every address, so the
// page never tells whether an account exists), and the link's landing page, whose button (a POST, so that mail
// scanners fetching the link do not use it up) starts the web session.
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
import {
  endWebSession,
  requireWebSession,
  sessionCookie,
  sessionCookieSecure,
  startWebSession,
  verifyCsrf,
} from "./session.js";
import { issueSignInLink, LINK_LIFETIME_MS, redeemSignInLink, safeNextPath } from "./sign-in-links.js";
import { createSignInMailer, renderSignInEmail } from "./sign-in-mail.js";
import { PAGE_PATHS, SESSION_COOKIE } from "./wire.js";

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
        "This service cannot send e-mail, so it cannot send sign-in links. The operator must start `baton serve` with --smtp-url smtp://host:port (see the operator docs).",
    });

  app.get(PAGE_PATHS.signIn, (c) => {
    if (!mailer.configured()) return c.html(notConfigured(), 503);
    const next = safeNextPath(c.req.query("next"));
    return c.html(
      renderPage({
        title: "Sign in",
        body: html`<form method="post" action="${PAGE_PATHS.signIn}">
<p>We will e-mail you a link that signs you in once.</p>
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required>
<input type="hidden" name="next" value="${next}">
<button type="submit">E-mail me a sign-in link</button></form>`,
      }),
    );
  });

  app.post(PAGE_PATHS.signIn, async (c) => {
    if (!mailer.configured()) return c.html(notConfigured(), 503);
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
    const user = await findUserByEmail(deps.db, email);
    if (user) {
      const issued = await issueSignInLink(deps.db, user.id, next, deps.now().getTime());
      if (issued.state === "issued") {
        const link = `${issuerOf(deps)}${PAGE_PATHS.signInLink}?token=${issued.token}`;
        mailer.send({ to: user.email, ...renderSignInEmail({ link, minutes: LINK_LIFETIME_MS / 60_000 }) });
      } else deps.logger.info({ userId: user.id }, "sign-in link not sent: too many asked for");
    }
    return c.html(
      renderMessagePage({
        title: "Check your e-mail",
        message:
          "If this address belongs to a Baton user, a sign-in link is on its way. It works once, for 15 minutes. Nothing arrived? Ask for another in a few minutes.",
      }),
    );
  });

  const invalidLink = (state: string) =>
    renderMessagePage({
      title: "This sign-in link does not work",
      message: `The link ${state === "used" ? "was already used" : state === "expired" ? "has expired" : "is not known"}. Request a new link from the sign-in page (${PAGE_PATHS.signIn}).`,
    });

  app.get(PAGE_PATHS.signInLink, (c) => {
    const token = c.req.query("token") ?? "";
    return c.html(
      renderPage({
        title: "Sign in to Baton",
        body: html`<form method="post" action="${PAGE_PATHS.signInLink}">
<input type="hidden" name="token" value="${token}">
<button type="submit">Sign in</button></form>`,
      }),
    );
  });

  app.post(PAGE_PATHS.signInLink, async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token : "";
    const redeemed = await redeemSignInLink(deps.db, token, deps.now().getTime());
    if (redeemed.state !== "valid") return c.html(invalidLink(redeemed.state), 400);
    const session = await startWebSession(deps, redeemed.userId, sessionCookieSecure(deps.capability));
    c.header("Set-Cookie", session.setCookie);
    return c.redirect(redeemed.next, 303);
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
