// One type for server-rendered HTML: hono's `html` tagged template escapes every interpolated value unless it is
// itself Html, so markup is escaped by construction. Our templates never interpolate a promise, so the result is
// always synchronous; `page` says so to the type checker once.
import { html as honoHtml } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString;

export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html =>
  honoHtml(strings, ...values) as Html;

/** Html for nothing (an optional section left out). */
export const nothing: Html = html``;
