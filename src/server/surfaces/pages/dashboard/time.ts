// Every time on a dashboard page: the ISO value as text, in `datetime` and on hover (`title`). The dashboard
// script rewrites the text into the viewer's time zone; without the script the ISO value (UTC) still reads.
import { type Html, html, nothing } from "../html.js";

export function renderTime(iso: string | null | undefined): Html {
  if (!iso) return nothing;
  return html`<time datetime="${iso}" title="${iso}">${iso}</time>`;
}
