// Markdown as the pages show it (pure): agents answer in Markdown, and the code host renders the same text in a
// pull request. markdown-it (CommonMark and GitHub's tables and strikethrough) with raw HTML off, so any tag in the
// text is shown as text; links only to http, https and mailto (anything else stays text) and never followed by
// crawlers nor given the page as opener or referrer; images never loaded (the CSP allows only our own anyway):
// each becomes a link to where it is. Headings start at h3, under the page's own h1 and h2; table alignment is a
// class, not an inline style the CSP would refuse. Line breaks are kept, as in an issue comment.
import { raw } from "hono/html";
import MarkdownIt, { type MarkdownIt as Markdown, type RendererRule } from "markdown-it";
import type { Html } from "./html.js";

const SAFE_LINK = /^(https?:|mailto:)/i;
export const LINK_REL = "nofollow noopener noreferrer";
/** The first heading level the rendered text may use (the page has h1 and h2 of its own). */
const FIRST_HEADING = 3;

type Rule = RendererRule;

function createRenderer(): Markdown {
  const md = new MarkdownIt("default", { html: false, linkify: true, typographer: false, breaks: true });
  md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  md.validateLink = (url) => SAFE_LINK.test(url.trim());
  const linkOpen: Rule = (tokens, idx, options, _env, self) => {
    tokens[idx]!.attrSet("rel", LINK_REL);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.link_open = linkOpen;
  // A link with no address (`[text]()`, or one whose address was refused) is its text alone, never an
  // `href=""` back to the page. Links do not nest, so each empty one's close is the next link_close.
  md.core.ruler.push("links_without_address", (state) => {
    for (const block of state.tokens) {
      const children = block.children;
      if (!children) continue;
      for (let at = 0; at < children.length; at++) {
        const token = children[at]!;
        if (token.type !== "link_open" || String(token.attrGet("href") ?? "").trim() !== "") continue;
        const close = children.findIndex((next, i) => i > at && next.type === "link_close");
        if (close > at) children.splice(close, 1);
        children.splice(at, 1);
        at -= 1;
      }
    }
  });
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const token = tokens[idx]!;
    const alt = self.renderInlineAsText(token.children ?? [], options, env).trim();
    const src = md.utils.escapeHtml(String(token.attrGet("src") ?? ""));
    const label = md.utils.escapeHtml(alt === "" ? "image" : `image: ${alt}`);
    // An image with no address (`![]()`) links nowhere: its label alone, never an `href=""` back to the page.
    if (src.trim() === "") return label;
    return `<a href="${src}" rel="${LINK_REL}">${label}</a>`;
  };
  const heading: Rule = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + FIRST_HEADING - 1)}`;
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.heading_open = heading;
  md.renderer.rules.heading_close = heading;
  const cell: Rule = (tokens, idx, options, _env, self) => {
    const token = tokens[idx]!;
    const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet("style") ?? ""));
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== "style");
    if (align) token.attrSet("class", `align-${align[1]}`);
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.th_open = cell;
  md.renderer.rules.td_open = cell;
  return md;
}

const renderer = createRenderer();

/** `text` as Markdown, ready to place in a page (everything in it escaped or checked above). */
export function renderMarkdown(text: string): Html {
  return raw(renderer.render(text)) as Html;
}
