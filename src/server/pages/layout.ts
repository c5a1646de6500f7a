// THROWAWAY COPY until the tokens-page helper's layout merges (same signature): the page frame every page uses.

import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import type { User } from "../auth/users.js";

export function renderPage(options: {
  title: string;
  body: HtmlEscapedString | Promise<HtmlEscapedString>;
  user?: User | undefined;
}): string {
  return String(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Baton</title></head>
<body><header>${options.user ? html`Signed in as ${options.user.email}` : ""}</header>
<main><h1>${options.title}</h1>${options.body}</main></body></html>`);
}
