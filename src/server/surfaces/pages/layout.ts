// The shared page layout: a whole HTML document around a page's body, with the header naming who is signed in
// (and a sign-out button when the page has the session's CSRF token). Every value is escaped by construction.
import { raw } from "hono/html";
import type { User } from "../../domain/auth/users.js";
import { type Html, html, nothing } from "./html.js";
import { STYLESHEET } from "./style.js";
import { CSRF_FIELD, PAGE_PATHS } from "./wire.js";

export interface PageOptions {
  /** The document title and the page's `<h1>`. */
  title: string;
  body: Html;
  /** The signed-in user, named in the header. */
  user?: User | undefined;
  /** The session's CSRF token: with `user`, the header offers a sign-out button. */
  csrfToken?: string | undefined;
}

export function renderPage(options: PageOptions): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · Baton</title>
<style>${raw(STYLESHEET)}</style>
</head>
<body>
<header><a class="brand" href="${PAGE_PATHS.tokens}">Baton</a>${renderWho(options)}</header>
<main>
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`.toString();
}

function renderWho(options: PageOptions): Html {
  if (!options.user) return nothing;
  const signOut = options.csrfToken
    ? html`<form method="post" action="${PAGE_PATHS.signOut}"><input type="hidden" name="${CSRF_FIELD}" value="${options.csrfToken}"><button type="submit">Sign out</button></form>`
    : nothing;
  return html`<span>Signed in as ${options.user.email}</span>${signOut}`;
}
