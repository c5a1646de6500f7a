// How pages write times a person reads: one form on every page, in UTC to the minute with the zone said
// ("2026-11-26 19:41 UTC"), the exact ISO value in `datetime` and on hover. Server-rendered only: the tokens
// pages run no script, so a page that localised its times would show two forms side by side in one visit.
import { type Html, html } from "./html.js";

export function formatWhen(iso: string | null): string {
  if (iso === null) return "never";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return iso;
  return `${when.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A `<time>` in the one form; `none` (escaped) stands in for no time. */
export function renderWhen(iso: string | null | undefined, none = ""): Html {
  if (!iso) return html`${none}`;
  return html`<time datetime="${iso}" title="${iso}">${formatWhen(iso)}</time>`;
}
