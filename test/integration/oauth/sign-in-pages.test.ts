// The sign-in pages and the web session over a real socket: the e-mailed one-time link (no account discovery,
// single use, 15 minutes, safe `next`, throttled), the session cookie's attributes, CSRF on the approval form,
// and the rule that a bearer token never authenticates a page.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { csrfTokenFor } from "../../../src/server/surfaces/pages/session.js";
import { CSRF_FIELD, PAGE_PATHS } from "../../../src/server/surfaces/pages/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { type OAuthWorld, OWNER, startOAuthWorld } from "./harness.js";

const UNKNOWN = "nobody@nowhere.test";

describe("sign-in by e-mailed link and the web session", () => {
  let world: OAuthWorld;
  let noSmtp: OAuthWorld;
  beforeAll(async () => {
    [world, noSmtp] = await Promise.all([startOAuthWorld(), startOAuthWorld({ smtp: false })]);
  });
  afterAll(async () => {
    await Promise.all([world?.close(), noSmtp?.close()]);
  });

  const ask = (email: string, next = "/oauth/interaction/abc") =>
    world.browse(`${world.url}${PAGE_PATHS.signIn}`, { form: { email, next } });
  async function linkFor(count: number): Promise<string> {
    const mails = await pollUntil(
      () => world.smtp.received,
      (m) => m.length >= count,
      { timeoutMs: 10_000 },
    );
    expect(mails.length).toBe(count);
    return /https?:\/\/\S+token=([A-Za-z0-9_-]+)/.exec(mails[count - 1]!.decoded)![1]!;
  }
  let window = 0;
  /** Asks for a link in a new 15-minute window (so earlier tests' links do not count) and returns its token. */
  async function freshLink(request: () => Promise<Response>): Promise<string> {
    window += 1;
    world.clock.offsetMs = window * 16 * 60_000;
    const before = world.smtp.received.length;
    await request();
    return linkFor(before + 1);
  }
  /** A browser opening the link: the link page (which sets the sign-in cookie), then its form as shown. */
  async function openLink(token: string, jar = "") {
    const page = await world.browse(`${world.url}${PAGE_PATHS.signInLink}?token=${token}`, { cookie: jar });
    const set = page.headers.getSetCookie().find((c) => c.startsWith("baton_sign_in="));
    const cookie = jar || (set?.split(";")[0] ?? "");
    const text = await page.text();
    const fields = Object.fromEntries(
      [...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
    );
    return { page, text, cookie, fields };
  }
  /** Opens the link in a browser of its own and presses the page's button (the confirmation where shown). */
  async function redeem(token: string) {
    const shown = await openLink(token);
    if (shown.page.status !== 200) return new Response(shown.text, { status: shown.page.status });
    return world.browse(`${world.url}${PAGE_PATHS.signInLink}`, { cookie: shown.cookie, form: shown.fields });
  }

  it("an unknown address gets the same page as a known one and no e-mail (no account discovery); each names the address typed (issue 37 A.10)", async () => {
    const unknown = await ask(UNKNOWN);
    const known = await ask(OWNER);
    expect(unknown.status).toBe(200);
    const [unknownText, knownText] = [await unknown.text(), await known.text()];
    expect(knownText).toContain(`a link that signs in as ${OWNER} is on its way there`);
    expect(unknownText.replaceAll(UNKNOWN, "<address>")).toBe(knownText.replaceAll(OWNER, "<address>"));
    await linkFor(1);
    expect(world.smtp.received.map((m) => m.to)).toEqual([[OWNER]]);
  });

  it("the link starts a session (HttpOnly, SameSite=Lax, Path=/, no Secure on loopback) and goes to next; it works once", async () => {
    const token = await linkFor(1);
    const first = await redeem(token);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/oauth/interaction/abc");
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^baton_session=[A-Za-z0-9_-]{43};/);
    for (const attribute of ["HttpOnly", "SameSite=Lax", "Path=/"]) expect(cookie).toContain(attribute);
    expect(cookie).not.toContain("Secure");
    const again = await redeem(token);
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("already used");
  });

  it("a link expires after 15 minutes; an unknown one says to request a new link", async () => {
    await ask(OWNER, "/dashboard/tokens");
    const token = await linkFor(2);
    world.clock.offsetMs = 15 * 60_000 + 1;
    const late = await redeem(token);
    world.clock.offsetMs = 0;
    expect(late.status).toBe(400);
    expect(await late.text()).toContain("has expired");
    const unknown = await redeem("x".repeat(43));
    expect(await unknown.text()).toContain("Request a new link");
  });

  it("sends at most 3 links per address in 15 minutes; the page stays the same", async () => {
    const before = world.smtp.received.length;
    await ask(OWNER);
    const over = await ask(OWNER);
    expect(over.status).toBe(200);
    await linkFor(before + 1);
    expect(world.logs.join("\n")).toContain("too many asked for");
  });

  it("A.2: another site's POST of an attacker's link token is refused with 403 and signs nobody in", async () => {
    const token = await freshLink(() => ask(OWNER));
    const attacks: Record<string, string>[] = [
      { "sec-fetch-site": "cross-site" },
      { origin: "http://evil.test" },
    ];
    for (const headers of attacks) {
      const forged = await fetch(`${world.url}${PAGE_PATHS.signInLink}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ token, confirm: "yes" }).toString(),
      });
      expect(forged.status).toBe(403);
      expect(forged.headers.get("set-cookie") ?? "").not.toContain("baton_session=");
      expect(await forged.text()).toContain("came from another site");
    }
    // Without those headers (an old browser) the form's token is missing: still nobody is signed in.
    const bare = await world.browse(`${world.url}${PAGE_PATHS.signInLink}`, {
      form: { token, confirm: "yes" },
    });
    expect(bare.status).toBe(403);
    expect(bare.headers.get("set-cookie") ?? "").not.toContain("baton_session=");
  });

  it("A.2: a link opened in another browser asks 'Sign in as <address>?' and signs in only after that click", async () => {
    const token = await freshLink(() => ask(OWNER));
    const shown = await openLink(token);
    expect(shown.text).toContain(`Sign in as ${OWNER}?`);
    const { confirm: _pressed, ...withoutConfirm } = shown.fields;
    const unconfirmed = await world.browse(`${world.url}${PAGE_PATHS.signInLink}`, {
      cookie: shown.cookie,
      form: withoutConfirm,
    });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.headers.get("set-cookie") ?? "").not.toContain("baton_session=");
    const confirmed = await world.browse(`${world.url}${PAGE_PATHS.signInLink}`, {
      cookie: shown.cookie,
      form: shown.fields,
    });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get("set-cookie")).toContain("baton_session=");
  });

  it("A.2: a sign-in whose next is an install lands on a continue page with a click, not in the install", async () => {
    const token = await freshLink(() => ask(OWNER, "/install/tracker?workspace=ws_attacker"));
    const answer = await redeem(token);
    expect(answer.status).toBe(303);
    const landing = answer.headers.get("location")!;
    expect(landing).toBe(
      `${PAGE_PATHS.signInContinue}?next=${encodeURIComponent("/install/tracker?workspace=ws_attacker")}`,
    );
    const session = /baton_session=[^;]+/.exec(answer.headers.get("set-cookie")!)![0];
    const page = await world.browse(`${world.url}${landing}`, { cookie: session });
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain(`signed in as <strong>${OWNER}</strong>`);
    expect(text).toContain('<a href="/install/tracker?workspace=ws_attacker">Continue</a>');
  });

  it("A.7: a stranger's many requests do not stop a browser that signed in as the address from getting a link", async () => {
    // The owner's browser signs in once through the form, which binds the link to it.
    const form = await world.browse(`${world.url}${PAGE_PATHS.signIn}`);
    const browser = /baton_sign_in=[^;]+/.exec(form.headers.get("set-cookie")!)![0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const askHere = () =>
      world.browse(`${world.url}${PAGE_PATHS.signIn}`, {
        cookie: browser,
        form: { email: OWNER, next: "/dashboard", csrf },
      });
    const own = await openLink(await freshLink(askHere), browser);
    expect(own.text).not.toContain("not asked for in this browser");
    expect(
      (await world.browse(`${world.url}${PAGE_PATHS.signInLink}`, { cookie: browser, form: own.fields }))
        .status,
    ).toBe(303);
    // A stranger asks for the owner's address until the address's shared count is used up (the owner's
    // first request above, from a browser not yet known, used one of its 3).
    const sent = world.smtp.received.length;
    for (let i = 0; i < 5; i++) await ask(OWNER);
    await linkFor(sent + 2);
    expect(world.logs.join("\n")).toContain("too many asked for");
    // The owner's own browser still gets its link.
    await askHere();
    await linkFor(sent + 3);
  });

  afterEach(() => {
    world.clock.offsetMs = 0;
  });

  it("without --smtp-url the sign-in page says e-mail sign-in is not configured and what to set", async () => {
    const answer = await noSmtp.browse(`${noSmtp.url}${PAGE_PATHS.signIn}`);
    expect(answer.status).toBe(503);
    expect(await answer.text()).toContain("--smtp-url");
  });

  it("a page without a session redirects to sign-in with next; a bearer token never authenticates a page", async () => {
    const bearer: Record<string, string> = { authorization: "Bearer btn_owner-acme-0000000000000000" };
    for (const headers of [{}, bearer]) {
      const answer = await fetch(`${world.url}/oauth/interaction/abc?x=1`, { redirect: "manual", headers });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(
        `${PAGE_PATHS.signIn}?next=%2Foauth%2Finteraction%2Fabc%3Fx%3D1`,
      );
    }
  });

  it("a session ends after 12 hours without a page view", async () => {
    const cookie = await world.sessionFor(OWNER);
    world.clock.offsetMs = 12 * 3_600_000;
    const answer = await world.browse(`${world.url}/oauth/interaction/abc`, { cookie });
    world.clock.offsetMs = 0;
    expect(answer.status).toBe(303);
  });

  it("sign-out (with the CSRF token) ends the session in the store and clears the cookie", async () => {
    const cookie = await world.sessionFor(OWNER);
    const csrf = csrfTokenFor(cookie.split("=")[1]!);
    const out = await world.browse(`${world.url}${PAGE_PATHS.signOut}`, {
      cookie,
      form: { [CSRF_FIELD]: csrf },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^baton_session=; .*Max-Age=0/);
    const after = await world.browse(`${world.url}/oauth/interaction/abc`, { cookie });
    expect(after.status).toBe(303);
    expect(after.headers.get("location")).toContain(PAGE_PATHS.signIn);
  });

  it("the session cookie never authenticates the token endpoint", async () => {
    const answer = await world.browse(`${world.url}/oauth/token`, {
      cookie: await world.sessionFor(OWNER),
      form: {
        grant_type: "authorization_code",
        code: "x".repeat(43),
        redirect_uri: "http://127.0.0.1/callback",
      },
    });
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toMatch(/^invalid_(request|client|grant)$/);
  });

  it.each([
    ["missing", {}],
    ["wrong", { [CSRF_FIELD]: "not-the-token" }],
  ])("a POST form whose CSRF token is %s gets 403 and a page saying to reload", async (_what, form) => {
    const answer = await world.browse(`${world.url}/oauth/interaction/abc`, {
      cookie: await world.sessionFor(OWNER),
      form: { decision: "approve", ...form },
    });
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("Reload the page");
  });
});
