// A page that only says something (a refusal, an outcome) in the common frame.

import type { User } from "../../domain/auth/users.js";
import { html } from "./html.js";
import { renderPage } from "./layout.js";

export function renderMessagePage(options: {
  title: string;
  message: string;
  user?: User | undefined;
}): string {
  return renderPage({ title: options.title, body: html`<p>${options.message}</p>`, user: options.user });
}
