// The shared page layout: a whole HTML document around a page's body, with the header naming who is signed in
// (and a sign-out button when the page has the session's CSRF token). Every value is escaped by construction.
// The brand leads to the dashboard; a signed-in reader also gets the dashboard and the tokens page by name, so no
// page is a dead end (the tokens page's only link used to be itself).
import { raw } from "hono/html";
import type { User } from "../../domain/auth/users.js";
import { type Html, html, nothing } from "./html.js";
import { STYLESHEET } from "./style.js";
import { CSRF_FIELD, PAGE_PATHS, PAGES_BASE_PATH } from "./wire.js";

export interface PageOptions {
  /** The document title and the page's `<h1>`. */
  title: string;
  body: Html;
  /** The signed-in user, named in the header. */
  user?: User | undefined;
  /** The session's CSRF token: with `user`, the header offers a sign-out button. */
  csrfToken?: string | undefined;
  /** The page is the tokens page: its link in the header is marked as the current page. */
  current?: "tokens" | undefined;
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
<header><a class="brand" href="${PAGES_BASE_PATH}">Baton</a>${renderWho(options)}</header>
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
  return html`${renderAccountLinks(options.current)}<span>Signed in as ${options.user.email}</span>${signOut}`;
}

/** The signed-in reader's own pages, in every header (the dashboard's frame too). */
export function renderAccountLinks(current?: "tokens" | undefined): Html {
  const tokens = current === "tokens" ? raw(' aria-current="page"') : nothing;
  return html`<nav class="account" aria-label="Your pages"><a href="${PAGES_BASE_PATH}">Dashboard</a> <a href="${PAGE_PATHS.tokens}"${tokens}>Access tokens</a></nav>`;
}
