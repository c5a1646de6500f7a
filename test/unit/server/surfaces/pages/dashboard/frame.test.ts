// The dashboard frame: escaping, the switcher and nav marking where the reader is (in words, not colour), the one
// script from our own origin that only the dashboard's CSP allows, and the time element in the pages' one form.
import { describe, expect, it } from "vitest";
import { renderDashboardPage } from "../../../../../../src/server/surfaces/pages/dashboard/frame.js";
import { renderTime } from "../../../../../../src/server/surfaces/pages/dashboard/time.js";
import {
  DASHBOARD_SCRIPT_PATH,
  newTaskPath,
  tasksPath,
} from "../../../../../../src/server/surfaces/pages/dashboard/wire.js";
import { contentSecurityPolicy, PAGE_HEADERS } from "../../../../../../src/server/surfaces/pages/headers.js";
import { html } from "../../../../../../src/server/surfaces/pages/html.js";

const USER = { id: "usr_1", email: "a&b@<x>.test", name: "A", codehostLogin: null };
const ONE = { workspaceId: "ws_1", workspaceName: "<Acme>", role: "member" as const };
const TWO = { workspaceId: "ws_2", workspaceName: "Beta", role: "owner" as const };

const page = (section: "tasks" | "new-task" | "tickets" | "settings", memberships = [ONE, TWO]) =>
  renderDashboardPage({
    title: `<b>Tasks</b>`,
    user: USER,
    csrfToken: "csrf-value",
    access: { membership: ONE, memberships },
    section,
    body: html`<p>${"<img src=x onerror=alert(1)>"}</p>`,
  });

describe("renderDashboardPage", () => {
  it("escapes the title, the user, the workspace names and the body's values", () => {
    const out = page("tasks");
    expect(out).not.toMatch(/<img|<b>|<Acme>/);
    expect(out).toContain("&lt;b&gt;Tasks&lt;/b&gt;");
    expect(out).toContain("a&amp;b@&lt;x&gt;.test");
    expect(out).toContain("&lt;Acme&gt;");
  });

  it.each([
    ["tasks", tasksPath("ws_1")],
    ["new-task", newTaskPath("ws_1")],
  ] as const)("marks the %s section with aria-current=page and no other", (section, href) => {
    const out = page(section);
    expect(out.match(/aria-current="page"/g)).toHaveLength(1);
    expect(out).toContain(`<a href="${href}" aria-current="page">`);
  });

  it("lists every workspace of the user, the current one said in words", () => {
    const out = page("tasks");
    expect(out).toContain(`<a href="${tasksPath("ws_2")}">Beta</a>`);
    expect(out).toMatch(/aria-current="true">&lt;Acme&gt;<\/a> <span class="badge">current<\/span>/);
    expect(page("tasks", [ONE])).toContain("Workspace: <strong>&lt;Acme&gt;</strong>");
  });

  it("offers sign-out as a POST with the CSRF token and loads only the dashboard script", () => {
    const out = page("tasks");
    expect(out).toContain('name="csrf" value="csrf-value"');
    expect([...out.matchAll(/<script[^>]*>/g)].map((m) => m[0])).toEqual([
      `<script src="${DASHBOARD_SCRIPT_PATH}" defer>`,
    ]);
    expect(out).not.toMatch(/<[^>]*\son[a-z]+=/i);
  });
});

describe("contentSecurityPolicy", () => {
  it("allows our own script and polling only when asked (the dashboard); other pages keep no script", () => {
    expect(contentSecurityPolicy([], { ownScript: true })).toContain("script-src 'self'; connect-src 'self'");
    expect(PAGE_HEADERS["content-security-policy"]).not.toMatch(/script-src|connect-src/);
  });
});

describe("renderTime", () => {
  it("puts the ISO value in datetime and title, the UTC minute with its zone as text (escaped), and nothing for no time", () => {
    expect(renderTime("2026-11-26T23:00:00.000Z").toString()).toBe(
      '<time datetime="2026-11-26T23:00:00.000Z" title="2026-11-26T23:00:00.000Z">2026-11-26 23:00 UTC</time>',
    );
    expect(renderTime('"><x').toString()).not.toContain("<x");
    expect(renderTime(null).toString()).toBe("");
  });
});
