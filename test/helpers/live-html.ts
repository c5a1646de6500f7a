// What in a page's HTML a browser would treat as live, for the hostile-text checks: every tag the markup opens
// (text the service escaped reads `&lt;…` and opens none) and its attributes. A hazard is a script other than the
// dashboard's own, an element that loads or runs something (img, iframe, object, embed, svg, math, style, link,
// meta, base), an on* attribute, an inline style (the CSP refuses those), or an address whose scheme is not
// http, https or mailto (a path on our own origin is fine). Hand-rolled because no HTML parser is a dependency:
// the service's markup is its own (hono's escaping and markdown-it's), which quotes every attribute value and
// escapes `<`, `>` and `"` inside them, so a tag ends at the first `>`.

const TAG = /<([a-zA-Z][a-zA-Z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const ATTRIBUTE = /([^\s"'=<>/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
const LOADING = new Set([
  "img",
  "iframe",
  "object",
  "embed",
  "svg",
  "math",
  "style",
  "link",
  "meta",
  "base",
  "frame",
]);
const ADDRESSES = new Set(["href", "src", "action", "formaction", "srcset", "poster", "data", "xlink:href"]);
const SAFE_ADDRESS = /^(https?:|mailto:|\/(?!\/)|#|\?)/i;

export interface Tag {
  name: string;
  attributes: [string, string][];
}

/** The tags the markup opens, in order, with their attributes (values with `&quot;` and `&amp;` decoded). */
export function tagsOf(markup: string): Tag[] {
  const tags: Tag[] = [];
  for (const match of markup.matchAll(TAG)) {
    const attributes: [string, string][] = [];
    for (const a of (match[2] ?? "").matchAll(ATTRIBUTE))
      attributes.push([a[1]!.toLowerCase(), decode(a[2] ?? a[3] ?? a[4] ?? "")]);
    tags.push({ name: match[1]!.toLowerCase(), attributes });
  }
  return tags;
}

const decode = (value: string) =>
  value
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

/** Every hazard in `markup`, described; `ownScripts` are the script addresses the page may load. */
export function liveHazards(markup: string, ownScripts: readonly string[] = []): string[] {
  const hazards: string[] = [];
  for (const tag of tagsOf(markup)) {
    const src = tag.attributes.find(([name]) => name === "src")?.[1];
    if (tag.name === "script" && !(src !== undefined && ownScripts.includes(src)))
      hazards.push(`a <script> (${src ?? "inline"})`);
    if (LOADING.has(tag.name)) hazards.push(`a <${tag.name}> element`);
    for (const [name, value] of tag.attributes) {
      if (name.startsWith("on")) hazards.push(`<${tag.name} ${name}=…>`);
      if (name === "style") hazards.push(`<${tag.name} style=…> (an inline style)`);
      if (ADDRESSES.has(name) && !SAFE_ADDRESS.test(value.trim()))
        hazards.push(`<${tag.name} ${name}="${value.slice(0, 60)}">`);
    }
  }
  return hazards;
}

/**
 * A whole page split at `</head>`: the head is the layout's own (charset, viewport and referrer meta tags, the one
 * stylesheet the CSP allows by hash, the title, the dashboard's script), so hazards are looked for in the body, and
 * the head is checked to hold only those tags.
 */
export function splitPage(markup: string): { headTags: string[]; body: string } {
  const end = markup.indexOf("</head>");
  if (end < 0) return { headTags: [], body: markup };
  return { headTags: tagsOf(markup.slice(0, end)).map((tag) => tag.name), body: markup.slice(end) };
}

export const LAYOUT_HEAD_TAGS = new Set(["html", "head", "meta", "title", "style", "script"]);
