// Issue 35 A.6: the authorization server's own browser session (oidc-provider's `_session` cookie) never stands in
// for the dashboard's. Before the fix, a browser that had approved an app kept getting new codes for it silently
// for 15 minutes after signing out of the dashboard, or with the dashboard's cookie gone. Now a code is issued
// only on a live web session of the same person, and signing out ends the authorization server's session too.
// The browser is a cookie jar over fetch with manual redirects (the pages themselves are tested in Chromium
// elsewhere); the client's loopback redirect is never called: reaching it with a code is the observation.
// The third test fails without sign-out ending the authorization server's session. The login check
// (web-session-check.ts) is defence in depth here: the approval page is asked for every code on this main, so
// the second test holds without it too; it guards the day a remembered grant skips that page.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildAuthorizationUrl, makeSignInSecrets } from "../../../src/client/pkce.js";
import { hashCredential } from "../../../src/server/primitives/tokens.js";
import { csrfTokenFor } from "../../../src/server/surfaces/pages/session.js";
import { CSRF_FIELD, PAGE_PATHS, SESSION_COOKIE } from "../../../src/server/surfaces/pages/wire.js";
import { type OAuthWorld, OWNER, startOAuthWorld } from "./harness.js";

const REDIRECT = "http://127.0.0.1:9/callback";
const PROVIDER_SESSION = "_session";

let world: OAuthWorld;
let clientId: string;

beforeAll(async () => {
  world = await startOAuthWorld({ smtp: false });
  const registered = await fetch(`${world.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "approved earlier",
      application_type: "native",
      token_endpoint_auth_method: "none",
      redirect_uris: [REDIRECT],
    }),
  });
  clientId = ((await registered.json()) as { client_id: string }).client_id;
});

afterAll(async () => {
  await world?.close();
});

/** A browser's cookies: every Set-Cookie kept (an emptied one removes its name). */
class Jar {
  readonly cookies = new Map<string, string>();
  keep(headers: Headers): void {
    for (const set of headers.getSetCookie()) {
      const [pair] = set.split(";");
      const at = pair!.indexOf("=");
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (value === "" || /max-age=0/i.test(set)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

type Outcome =
  | { kind: "code"; code: string }
  | { kind: "error"; error: string }
  | { kind: "page"; url: string; status: number; page: string };

/**
 * GETs and redirects until the client's redirect (a code or an error) or a page; approves an approval page when
 * asked. `silently` asks with `prompt=none`: a code only if the server needs to show nothing (OIDC Core 3.1.2.1).
 */
async function authorize(jar: Jar, options: { approve: boolean; silently?: boolean }): Promise<Outcome> {
  const secrets = makeSignInSecrets(randomBytes(32), randomBytes(16));
  let next = buildAuthorizationUrl({
    authorizationEndpoint: `${world.url}/oauth/authorize`,
    clientId,
    redirectUri: REDIRECT,
    resource: `${world.url}/v1/mcp`,
    scope: "baton",
    secrets,
  });
  if (options.silently) next += "&prompt=none";
  let form: Record<string, string> | undefined;
  for (let hop = 0; hop < 12; hop++) {
    const answer = await fetch(next, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    jar.keep(answer.headers);
    form = undefined;
    const location = answer.headers.get("location");
    if (location) {
      if (location.startsWith(REDIRECT)) {
        const back = new URL(location).searchParams;
        const code = back.get("code");
        if (code) return { kind: "code", code };
        return { kind: "error", error: back.get("error") ?? `no code and no error: ${location}` };
      }
      next = new URL(location, next).toString();
      continue;
    }
    const page = await answer.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!options.approve || !csrf || !next.includes("/oauth/interaction/"))
      return { kind: "page", url: next, status: answer.status, page };
    form = { csrf, decision: "approve" };
  }
  throw new Error("too many redirects");
}

/** A browser signed in to the dashboard as the owner, which has approved the client once. */
async function browserThatApproved(): Promise<Jar> {
  const jar = new Jar();
  const [name, value] = (await world.sessionFor(OWNER)).split("=") as [string, string];
  jar.cookies.set(name, value);
  expect((await authorize(jar, { approve: true })).kind).toBe("code");
  expect(jar.cookies.has(PROVIDER_SESSION)).toBe(true);
  return jar;
}

describe("a code needs a live web session of the person (issue 35 A.6)", () => {
  it("while signed in, the next authorization of an app approved earlier reaches its approval page", async () => {
    const jar = await browserThatApproved();
    const asked = await authorize(jar, { approve: false });
    expect(asked.kind).toBe("page");
    if (asked.kind === "page") expect(asked.url).toContain("/oauth/interaction/");
    expect(await authorize(jar, { approve: true })).toMatchObject({ kind: "code" });
  });

  it("the authorization server's own cookie alone (the dashboard's gone) gets no code: sign-in is asked", async () => {
    const jar = await browserThatApproved();
    jar.cookies.delete(SESSION_COOKIE);
    expect(await authorize(jar, { approve: false, silently: true })).toMatchObject({ kind: "error" });
    const asked = await authorize(jar, { approve: false });
    expect(asked.kind).toBe("page");
    if (asked.kind === "page") expect(asked.url).toContain(PAGE_PATHS.signIn);
  });

  it("signing out of the dashboard ends the authorization server's session: no code with the old cookies", async () => {
    const jar = await browserThatApproved();
    const before = new Jar();
    for (const [name, value] of jar.cookies) before.cookies.set(name, value);
    const signedOut = await fetch(`${world.url}${PAGE_PATHS.signOut}`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ [CSRF_FIELD]: csrfTokenFor(jar.cookies.get(SESSION_COOKIE)!) }).toString(),
    });
    expect(signedOut.status).toBe(303);
    const providerSessions = async (id: string) =>
      Number(
        (await world.db.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM oauth_models WHERE model = 'Session' AND id_hash = ?",
          [hashCredential(id)],
        ))!.n,
      );
    expect(await providerSessions(before.cookies.get(PROVIDER_SESSION)!)).toBe(0);
    // A browser that kept every cookie it had before signing out (a copied jar, a cookie store restored): the
    // web session ended in the store, and so did the authorization server's.
    expect(await authorize(before, { approve: false, silently: true })).toMatchObject({ kind: "error" });
    // The check can fail: the session of a browser that did not sign out is still stored.
    const stillIn = await browserThatApproved();
    expect(await providerSessions(stillIn.cookies.get(PROVIDER_SESSION)!)).toBe(1);
  });
});
