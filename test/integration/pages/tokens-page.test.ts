// The access-tokens page `{dashboard_url}/tokens` in process (reference section 2, "Access token"): create with a
// name and 30, 90 or 365 days, "the full token is shown once; afterwards only its name and last four characters
// are shown", revoke ("revocation is immediate"), refusals that say what to fix, CSRF on every form, and a web
// session (never a bearer token) to see it at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOwnToken } from "../../../src/server/domain/auth/own-tokens.js";
import { newId } from "../../../src/server/primitives/tokens.js";
import { NOTICES, TOKENS_PAGE_PATHS } from "../../../src/server/surfaces/pages/tokens/wire.js";
import { CSRF_FIELD, PAGE_PATHS } from "../../../src/server/surfaces/pages/wire.js";
import { WIRE_ERRORS } from "../../../src/transport/wire.js";
import {
  type Answer,
  createPagesHarness,
  csrfOf,
  inputValue,
  type PagesHarness,
  shownToken,
} from "./harness.js";

const DAY_MS = 86_400_000;
const DEV = "dev@acme.test";

let h: PagesHarness;
let cookie: string;
beforeAll(async () => {
  h = await createPagesHarness();
  cookie = await h.signIn(DEV);
});
afterAll(async () => {
  await h?.close();
});

async function openForm(who = cookie): Promise<{ csrf: string; formId: string; page: Answer }> {
  const page = await h.page("GET", PAGE_PATHS.tokens, { cookie: who });
  expect(page.status).toBe(200);
  return { csrf: csrfOf(page.text), formId: inputValue(page.text, "formId"), page };
}

async function createToken(name: string, lifetimeDays = "30", who = cookie) {
  const { csrf, formId } = await openForm(who);
  const form = { [CSRF_FIELD]: csrf, formId, name, lifetimeDays };
  const answer = await h.page("POST", PAGE_PATHS.tokens, { cookie: who, form });
  expect(answer.status, answer.text).toBe(200);
  const token = shownToken(answer.text);
  if (!token) throw new Error("the creation page shows no token");
  return { token, answer, form };
}

const tokenCount = async () =>
  ((await h.db.get("SELECT count(*) AS n FROM personal_access_tokens")) as { n: number }).n;
const revokedAt = async (lastFour: string) =>
  (
    (await h.db.get("SELECT revoked_at_ms FROM personal_access_tokens WHERE last_four = ?", [lastFour])) as {
      revoked_at_ms: number | null;
    }
  ).revoked_at_ms;

describe("creating a token", () => {
  it.each([30, 90, 365])(
    "a %i-day token is shown once, acts on GET /v1/me, and expires after exactly that many days",
    async (days) => {
      const before = Date.now();
      const { token, answer } = await createToken(`laptop ${days}`, String(days));
      expect(token).toMatch(/^btn_[A-Za-z0-9_-]{43}$/);
      expect(answer.text).toContain("you will not see it again");
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect((await h.me(token)).status).toBe(200);
      const row = (await h.db.get(
        "SELECT created_at, expires_at_ms FROM personal_access_tokens WHERE last_four = ?",
        [token.slice(-4)],
      )) as { created_at: string; expires_at_ms: number };
      expect(row.expires_at_ms - Date.parse(row.created_at)).toBe(days * DAY_MS);
      expect(Date.parse(row.created_at)).toBeGreaterThanOrEqual(before - 1000);
    },
  );

  it("afterwards the list shows only the name and last four, never the token", async () => {
    const { token } = await createToken("only-last-four");
    const list = await h.page("GET", PAGE_PATHS.tokens, { cookie });
    expect(list.text).toContain("only-last-four");
    expect(list.text).toContain(`…${token.slice(-4)}`);
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain(token.slice(4, -4));
  });

  it("sending the same form again (a reload of the creation page) creates nothing and shows no token", async () => {
    const { token, form } = await createToken("reloaded");
    const count = tokenCount();
    const again = await h.page("POST", PAGE_PATHS.tokens, { cookie, form });
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe(`${PAGE_PATHS.tokens}?notice=${NOTICES.alreadyCreated}`);
    expect(again.text).not.toContain(token);
    expect(await tokenCount()).toBe(await count);
    const list = await h.page("GET", again.headers.get("location")!, { cookie });
    expect(shownToken(list.text)).toBeUndefined();
    expect(list.text).toContain("already used");
  });

  it("the name is trimmed, and 100 characters is the longest name", async () => {
    await createToken("   padded   ");
    await createToken("n".repeat(100));
    const list = await h.page("GET", PAGE_PATHS.tokens, { cookie });
    expect(list.text).toContain('<td data-label="Name">padded</td>');
    expect(list.text).toContain(`<td data-label="Name">${"n".repeat(100)}</td>`);
  });

  it("the list says in words which tokens are Active, Expired or Revoked", async () => {
    // Made 31 days ago with 30 days to live: expired a day ago (the store's clock is passed in, not waited for).
    const old = await createOwnToken(
      h.db,
      await h.user(DEV),
      { id: newId("pat"), name: "long-gone", lifetimeDays: 30 },
      new Date(Date.now() - 31 * DAY_MS),
    );
    if (old === "already-created") throw new Error("a fresh id was taken");
    expect((await h.me(old.token)).status).toBe(401);
    const list = await h.page("GET", PAGE_PATHS.tokens, { cookie });
    expect(list.text).toMatch(
      new RegExp(`…${escapeRegExp(old.lastFour)}</code></td>[\\s\\S]*?<td data-label="State">Expired</td>`),
    );
    expect(list.text).toContain('<td data-label="State">Active</td>');
  });

  it("a name is shown escaped, never as markup", async () => {
    await createToken(`<img src=x onerror="alert(1)">`);
    const list = await h.page("GET", PAGE_PATHS.tokens, { cookie });
    expect(list.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(list.text).not.toContain("<img src=x");
  });
});

describe("a bad form is refused with what to fix, and nothing is created", () => {
  it.each([
    ["a lifetime of 60 days", { lifetimeDays: "60" }, "30, 90 or 365 days"],
    ["a lifetime of 0 days", { lifetimeDays: "0" }, "30, 90 or 365 days"],
    ["a lifetime that is not a number", { lifetimeDays: "forever" }, "30, 90 or 365 days"],
    ["no lifetime", { lifetimeDays: undefined }, "30, 90 or 365 days"],
    ["an empty name", { name: "" }, "name of 1 to 100 characters"],
    ["a name of spaces only", { name: "    " }, "name of 1 to 100 characters"],
    ["a name of 101 characters", { name: "n".repeat(101) }, "name of 1 to 100 characters"],
    ["no name", { name: undefined }, "name of 1 to 100 characters"],
    ["a form id that is not one the page made", { formId: "pat_../../x" }, "reload the page"],
  ])("%s", async (_what, change, message) => {
    const { csrf, formId } = await openForm();
    const form: Record<string, string | undefined> = {
      [CSRF_FIELD]: csrf,
      formId,
      name: "fine",
      lifetimeDays: "90",
      ...change,
    };
    const count = tokenCount();
    const answer = await h.page("POST", PAGE_PATHS.tokens, {
      cookie,
      form: Object.fromEntries(Object.entries(form).filter(([, v]) => v !== undefined)) as Record<
        string,
        string
      >,
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain(message);
    expect(answer.text).toContain('role="alert"');
    expect(shownToken(answer.text)).toBeUndefined();
    expect(await tokenCount()).toBe(await count);
  });
});

describe("a form over 16 KiB", () => {
  it("is refused with 413 and a page saying what to do, and nothing is created", async () => {
    const { csrf, formId } = await openForm();
    const count = tokenCount();
    const answer = await h.page("POST", PAGE_PATHS.tokens, {
      cookie,
      form: { [CSRF_FIELD]: csrf, formId, name: "n".repeat(17 * 1024), lifetimeDays: "30" },
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.get("content-type")).toContain("text/html");
    expect(answer.text).toContain("shorten what you typed");
    expect(await tokenCount()).toBe(await count);
  });
});

describe("revoking a token", () => {
  it("asks to confirm first, then revokes at once: the API's next call is 401 invalid_token", async () => {
    const { token } = await createToken("to-revoke");
    const page = await h.page("GET", PAGE_PATHS.tokens, { cookie });
    const tokenId = tokenIdOf(page.text, token.slice(-4));
    const asked = await h.page("POST", TOKENS_PAGE_PATHS.revoke, {
      cookie,
      form: { [CSRF_FIELD]: csrfOf(page.text), tokenId },
    });
    expect(asked.status).toBe(200);
    expect(asked.text).toContain("Revoke the token “to-revoke”");
    expect((await h.me(token)).status).toBe(200);
    const done = await h.page("POST", TOKENS_PAGE_PATHS.revoke, {
      cookie,
      form: { [CSRF_FIELD]: csrfOf(asked.text), tokenId, confirm: "yes" },
    });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe(`${PAGE_PATHS.tokens}?notice=${NOTICES.revoked}`);
    const refused = await h.me(token);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).error).toBe(WIRE_ERRORS.invalidToken);
    const list = await h.page("GET", done.headers.get("location")!, { cookie });
    expect(list.text).toContain("The token is revoked");
    expect(list.text).toMatch(new RegExp(`…${escapeRegExp(token.slice(-4))}</code></td>[\\s\\S]*?Revoked`));
  });

  it("another user's token id is not found, and that token keeps working", async () => {
    const owner = await h.signIn("owner@acme.test");
    const { token } = await createToken("owners", "30", await owner);
    const tokenId = tokenIdOf(
      (await h.page("GET", PAGE_PATHS.tokens, { cookie: owner })).text,
      token.slice(-4),
    );
    const { csrf } = await openForm();
    for (const form of [
      { [CSRF_FIELD]: csrf, tokenId } as Record<string, string>,
      { [CSRF_FIELD]: csrf, tokenId, confirm: "yes" },
    ]) {
      const answer = await h.page("POST", TOKENS_PAGE_PATHS.revoke, { cookie, form });
      expect(answer.status).toBe(404);
      expect(answer.text).toContain("Pick one from the list");
      expect(answer.text).not.toContain("owners");
    }
    expect(await revokedAt(token.slice(-4))).toBeNull();
    expect((await h.me(token)).status).toBe(200);
  });
});

describe("CSRF: a form without the session's token is refused with 403 and changes nothing", () => {
  const cases = [
    ["no", () => ({})],
    ["a wrong", () => ({ [CSRF_FIELD]: "x".repeat(43) })],
    ["another session's", () => ({ [CSRF_FIELD]: otherCsrf })],
  ] as const;
  let otherCsrf: string;
  let victim: { token: string; tokenId: string };
  beforeAll(async () => {
    otherCsrf = (await openForm(await h.signIn(DEV))).csrf;
    const { token } = await createToken("csrf-victim");
    victim = { token, tokenId: tokenIdOf((await openForm()).page.text, token.slice(-4)) };
  });

  it.each(cases)("create with %s CSRF token", async (_what, csrf) => {
    const { formId } = await openForm();
    const count = tokenCount();
    const answer = await h.page("POST", PAGE_PATHS.tokens, {
      cookie,
      form: { ...csrf(), formId, name: "forged", lifetimeDays: "30" },
    });
    expect(answer.status).toBe(403);
    expect(await tokenCount()).toBe(await count);
  });

  it.each(cases)("revoke with %s CSRF token", async (_what, csrf) => {
    const answer = await h.page("POST", TOKENS_PAGE_PATHS.revoke, {
      cookie,
      form: { ...csrf(), tokenId: victim.tokenId, confirm: "yes" },
    });
    expect(answer.status).toBe(403);
    expect(await revokedAt(victim.token.slice(-4))).toBeNull();
    expect((await h.me(victim.token)).status).toBe(200);
  });
});

describe("who may see the page", () => {
  it.each([
    ["GET", PAGE_PATHS.tokens],
    ["POST", PAGE_PATHS.tokens],
    ["POST", TOKENS_PAGE_PATHS.revoke],
    ["POST", TOKENS_PAGE_PATHS.disconnect],
  ] as const)("no session: %s %s redirects (303) to sign-in with next", async (method, path) => {
    const answer = await h.page(method, path, method === "POST" ? { form: { name: "x" } } : {});
    expect(answer.status).toBe(303);
    const location = new URL(answer.headers.get("location")!, "http://service.test");
    expect(location.pathname).toBe(PAGE_PATHS.signIn);
    expect(location.searchParams.get("next")).toBe(path);
  });

  it("a bearer token never authenticates the page (nor does an unknown session cookie)", async () => {
    const { token } = await createToken("bearer-try");
    for (const init of [
      { headers: { authorization: `Bearer ${token}` } },
      { cookie: "baton_session=not-a-session" },
    ]) {
      const answer = await h.page("GET", PAGE_PATHS.tokens, init);
      expect(answer.status).toBe(303);
      expect(answer.text).not.toContain("bearer-try");
    }
  });

  it("a session cookie never authenticates the API: GET /v1/me with only the cookie is 401", async () => {
    const answer = await h.page("GET", "/v1/me", { cookie });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text).error).toBe(WIRE_ERRORS.invalidToken);
  });

  it.each([TOKENS_PAGE_PATHS.revoke, TOKENS_PAGE_PATHS.disconnect])(
    "GET %s (only forms post there) goes to the list",
    async (path) => {
      const answer = await h.page("GET", path, { cookie });
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(PAGE_PATHS.tokens);
    },
  );

  it("the page is served on the public listener only", async () => {
    for (const listener of [h.app.listeners.sandbox, h.app.listeners.admin])
      expect((await listener.request(PAGE_PATHS.tokens, { headers: { cookie } })).status).toBe(404);
  });
});

describe("security headers", () => {
  it("every page answer forbids script, framing and caching, and sends no referrer", async () => {
    const { answer } = await createToken("headers");
    const answers = [
      answer,
      (await openForm()).page,
      await h.page("POST", TOKENS_PAGE_PATHS.revoke, { cookie }),
    ];
    for (const one of answers) {
      const csp = one.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).not.toContain("script-src");
      expect(one.headers.get("x-frame-options")).toBe("DENY");
      expect(one.headers.get("referrer-policy")).toBe("no-referrer");
      expect(one.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("canary: a new token's value", () => {
  it("appears in exactly one answer (the creation page) and in no log line", async () => {
    const from = h.seen.length;
    const { token } = await createToken("canary");
    await h.page("GET", PAGE_PATHS.tokens, { cookie });
    await h.page("GET", `${PAGE_PATHS.tokens}?notice=${NOTICES.revoked}`, { cookie });
    expect((await h.me(token)).status).toBe(200);
    const holding = h.seen.slice(from).filter((answer) => answer.text.includes(token));
    expect(holding).toHaveLength(1);
    expect(holding[0]!.text).toContain("you will not see it again");
    expect(h.logs.length).toBeGreaterThan(0);
    expect(h.logs.join("\n")).toContain("token.created");
    expect(h.logs.join("\n")).not.toContain(token);
    expect(h.logs.join("\n")).not.toContain(token.slice(4));
  });
});

function tokenIdOf(html: string, lastFour: string): string {
  const row = new RegExp(
    `…${escapeRegExp(lastFour)}</code>[\\s\\S]*?name="tokenId" value="(pat_[0-9a-f]+)"`,
  ).exec(html);
  if (!row) throw new Error(`no revoke form for …${lastFour}`);
  return row[1]!;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
}
