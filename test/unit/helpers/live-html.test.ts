// The hostile-text crawl's own check (test/helpers/live-html.ts) finds what it must, or the crawl proves nothing.
import { describe, expect, it } from "vitest";
import { liveHazards, splitPage } from "../../helpers/live-html.js";

describe("liveHazards", () => {
  it.each([
    ["<script>alert(1)</script>", "a <script> (inline)"],
    ['<script src="https://evil.test/x.js"></script>', "a <script> (https://evil.test/x.js)"],
    ["<img src=x>", "a <img> element"],
    ['<svg onload="x">', "a <svg> element"],
    ['<p onclick="x">', "<p onclick=…>"],
    ["<p OnMouseOver=x>", "<p onmouseover=…>"],
    ['<a href="javascript:alert(1)">', '<a href="javascript:alert(1)">'],
    ['<a href=" JAVASCRIPT:x">', '<a href=" JAVASCRIPT:x">'],
    ['<a href="data:text/html,x">', '<a href="data:text/html,x">'],
    ['<a href="//evil.test/x">', '<a href="//evil.test/x">'],
    ['<form action="javascript:x">', '<form action="javascript:x">'],
    ['<p style="color:red">', "<p style=…> (an inline style)"],
    ["<iframe src='https://a.test'>", "a <iframe> element"],
  ])("finds %s", (markup, hazard) => {
    expect(liveHazards(markup)).toContain(hazard);
  });

  it.each([
    ['<script src="/dashboard/assets/dashboard.js" defer></script>'],
    ['<a href="https://a.test/x?y=1&amp;z=2" rel="nofollow">x</a> <a href="mailto:a@b.test">m</a>'],
    ['<a href="/dashboard/workspaces/ws/tasks">tasks</a> <form method="post" action="/dashboard/x">'],
    ["<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;</p>"],
    ['<code class="language-js&quot; onclick=&quot;x">'],
  ])("passes %s", (markup) => {
    expect(liveHazards(markup, ["/dashboard/assets/dashboard.js"])).toEqual([]);
  });

  it("splitPage keeps the layout's head apart from the body", () => {
    const { headTags, body } = splitPage(
      '<html><head><meta charset="utf-8"><style>x</style></head><body><p>hi</p>',
    );
    expect(headTags).toEqual(["html", "head", "meta", "style"]);
    expect(body).toBe("</head><body><p>hi</p>");
  });
});
