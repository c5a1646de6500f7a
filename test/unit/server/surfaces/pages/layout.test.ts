// The shared page layout: values escaped by construction, the one inline stylesheet allowed by its exact hash
// (and nothing else inline), and the security headers every page carries.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, PAGE_HEADERS } from "../../../../../src/server/surfaces/pages/headers.js";
import { html } from "../../../../../src/server/surfaces/pages/html.js";
import { renderPage } from "../../../../../src/server/surfaces/pages/layout.js";
import { CSRF_FIELD, PAGE_PATHS } from "../../../../../src/server/surfaces/pages/wire.js";

const USER = { id: "usr_1", email: "a&b@<x>.test", name: "A", codehostLogin: null };

describe("renderPage", () => {
  it("escapes the title, the user and every value put into the body", () => {
    const page = renderPage({
      title: `<script>alert("t")</script>`,
      body: html`<p>${`<img src=x onerror=alert(1)>`}</p>`,
      user: USER,
    });
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("<img");
    expect(page).toContain("&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;");
    expect(page).toContain("a&amp;b@&lt;x&gt;.test");
  });

  it("offers sign-out as a POST form carrying the CSRF token only when it has one", () => {
    const withToken = renderPage({ title: "t", body: html``, user: USER, csrfToken: "csrf-value" });
    expect(withToken).toContain(`<form method="post" action="${PAGE_PATHS.signOut}">`);
    expect(withToken).toContain(`name="${CSRF_FIELD}" value="csrf-value"`);
    expect(renderPage({ title: "t", body: html``, user: USER })).not.toContain(PAGE_PATHS.signOut);
    expect(renderPage({ title: "t", body: html`` })).not.toContain("Signed in as");
  });

  it("has no script and one inline stylesheet, whose sha256 is the one the CSP allows", () => {
    const page = renderPage({ title: "t", body: html`` });
    expect(page).not.toMatch(/<script|\son[a-z]+=/i);
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
    expect(styles).toHaveLength(1);
    const hash = createHash("sha256").update(styles[0]!, "utf8").digest("base64");
    expect(PAGE_HEADERS["content-security-policy"]).toContain(`style-src 'sha256-${hash}'`);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  });
});

describe("page headers", () => {
  it.each([
    ["content-security-policy", "default-src 'none'"],
    ["content-security-policy", "frame-ancestors 'none'"],
    ["content-security-policy", "form-action 'self'"],
    ["content-security-policy", "base-uri 'none'"],
    ["x-frame-options", "DENY"],
    ["referrer-policy", "no-referrer"],
    ["cache-control", "no-store"],
    ["x-content-type-options", "nosniff"],
  ] as const)("%s carries %s", (name, value) => {
    expect(PAGE_HEADERS[name]).toContain(value);
  });

  it("the CSP allows no script and no inline style but ours", () => {
    expect(PAGE_HEADERS["content-security-policy"]).not.toMatch(/script-src|unsafe-inline|unsafe-eval/);
  });

  it("a page whose form answer redirects elsewhere (the approval page) may add that form-action origin", () => {
    expect(contentSecurityPolicy(["http://127.0.0.1:*"])).toContain("form-action 'self' http://127.0.0.1:*");
  });
});
