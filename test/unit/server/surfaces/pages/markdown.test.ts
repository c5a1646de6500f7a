// Markdown on the pages (issue 34, point 4: "rendered as Markdown through a well-kept renderer with raw HTML off
// and links made safe, as the code host renders the same text in a pull request"): what renders, what stays text,
// and, for any text at all (fast-check), no live script, handler, inline style or unsafe address in the output.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LINK_REL, renderMarkdown } from "../../../../../src/server/surfaces/pages/markdown.js";
import { liveHazards, tagsOf } from "../../../../helpers/live-html.js";

const render = (text: string) => renderMarkdown(text).toString();

describe("renderMarkdown renders what agents write", () => {
  it.each([
    [
      "emphasis and code",
      "Some **bold**, _it_ and `x < y`",
      "<p>Some <strong>bold</strong>, <em>it</em> and <code>x &lt; y</code></p>",
    ],
    ["a line break is kept, as in an issue comment", "one\ntwo", "<p>one<br>\ntwo</p>"],
    ["a heading starts at h3 under the page's own", "# Title\n###### Deep", "<h3>Title</h3>\n<h6>Deep</h6>"],
    ["a list", "- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"],
    [
      "a fenced block with its language as a class",
      "```ts\nlet a = 1;\n```",
      '<pre><code class="language-ts">let a = 1;\n</code></pre>',
    ],
    [
      "a table's alignment as a class, not an inline style",
      "| a |\n|--:|\n| 1 |",
      '<th class="align-right">a</th>',
    ],
    ["strikethrough", "~~old~~", "<s>old</s>"],
  ])("%s", (_, text, expected) => {
    expect(render(text)).toContain(expected);
  });

  it.each([
    ["an https link", "[docs](https://example.test/a?b=1&c=2)", "https://example.test/a?b=1&amp;c=2"],
    ["an http link", "[x](http://example.test)", "http://example.test"],
    ["a mailto link", "<mailto:dev@example.test>", "mailto:dev@example.test"],
    ["a bare https address", "see https://example.test/x", "https://example.test/x"],
  ])("%s is a link no crawler follows and that gets no opener or referrer", (_, text, href) => {
    expect(render(text)).toContain(`<a href="${href}" rel="${LINK_REL}">`);
  });
});

describe("renderMarkdown keeps hostile text dead", () => {
  it.each([
    ["a script tag", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [
      "an img with an onerror handler",
      '<img src=x onerror="alert(1)">',
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;",
    ],
    ["a javascript: link", "[click](javascript:alert(1))", "[click](javascript:alert(1))"],
    [
      "a javascript: link in other case and spaces",
      "[click]( JaVaScRiPt:alert(1) )",
      "[click]( JaVaScRiPt:alert(1) )",
    ],
    ["a javascript: autolink", "<javascript:alert(1)>", "&lt;javascript:alert(1)&gt;"],
    ["a javascript: reference", "[x]\n\n[x]: javascript:alert(1)", "[x]: javascript:alert(1)"],
    ["a data: link", "[d](data:text/html;base64,PHNjcmlwdD4=)", "[d](data:text/html;base64,PHNjcmlwdD4=)"],
    ["a data: image", "![i](data:image/png;base64,AAAA)", "![i](data:image/png;base64,AAAA)"],
    [
      "a javascript: link spelt with an entity",
      "[e](&#106;avascript:alert(1))",
      "<p>[e](javascript:alert(1))</p>",
    ],
    ["a vbscript: link", "[v](vbscript:msgbox)", "[v](vbscript:msgbox)"],
    ["a file: link", "[f](file:///etc/passwd)", "[f](file:///etc/passwd)"],
    ["a relative link", "[r](/admin)", "[r](/admin)"],
    ["a bare host name (no fuzzy links)", "www.example.test", "<p>www.example.test</p>"],
    ["an html comment", "<!-- hidden -->", "&lt;!-- hidden --&gt;"],
    ["an iframe", '<iframe src="https://evil.test"></iframe>', "&lt;iframe"],
    [
      "a quote breaking out of a fence's class",
      '```js" onmouseover="alert(1)\nx\n```',
      'class="language-js&quot;"',
    ],
  ])("%s is shown as text", (_, text, shown) => {
    const out = render(text);
    expect(out).toContain(shown);
    expect(liveHazards(out)).toEqual([]);
  });

  it("an image is never loaded: it becomes a link to where it is, with its alt text", () => {
    const out = render("![the logo](https://evil.test/track.png)");
    expect(tagsOf(out).map((t) => t.name)).not.toContain("img");
    expect(out).toContain(`<a href="https://evil.test/track.png" rel="${LINK_REL}">image: the logo</a>`);
  });

  it("an image without an address is its label, not a link back to the page (fast-check's counterexample)", () => {
    expect(render("![]()")).toBe("<p>image</p>\n");
    expect(render("![a chart]( )")).toBe("<p>image: a chart</p>\n");
  });

  it('a link without an address is its text, not a link back to the page (fast-check\'s counterexample ["[","](",")"])', () => {
    expect(render("[]()")).toBe("<p></p>\n");
    expect(render("[the docs]( )")).toBe("<p>the docs</p>\n");
    expect(render("[**bold**]() then [next](https://x.test)")).toBe(
      `<p><strong>bold</strong> then <a href="https://x.test" rel="${LINK_REL}">next</a></p>\n`,
    );
  });

  it("for any text, the output opens no script, no loading element, no handler, no inline style, no unsafe address", () => {
    const pieces = fc.constantFrom(
      "<script>",
      "</script>",
      "<img src=x onerror=alert(1)>",
      "javascript:alert(1)",
      "data:text/html,x",
      "[",
      "](",
      ")",
      "![",
      "<",
      ">",
      '"',
      "'",
      "`",
      "```",
      "\n",
      " ",
      "onload=",
      "style=",
      "https://a.test",
      "|",
      "--:|",
      "*",
      "<svg onload=alert(1)>",
      "&#106;avascript:",
      "\u0000",
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(pieces, fc.string()), { maxLength: 40 }), (parts) => {
        expect(liveHazards(render(parts.join("")))).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
