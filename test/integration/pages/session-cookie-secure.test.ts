// The session cookie's Secure flag follows the service's public URL (`--public-url`), never the request's Host:
// in process, the public listener's handler called with the Host header a client (or a TLS front that rewrites
// it) sends. The sign-in link is issued straight into the store, as the e-mail would carry it (the mail itself
// is tested in test/integration/oauth/sign-in-pages.test.ts).
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { csrfTokenFor, startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { browserFormTokenFor, browserHashOf } from "../../../src/server/surfaces/pages/sign-in-browser.js";
import { issueSignInLink } from "../../../src/server/surfaces/pages/sign-in-links.js";
import {
  CSRF_FIELD,
  PAGE_PATHS,
  SESSION_COOKIE,
  SIGN_IN_BROWSER_COOKIE,
} from "../../../src/server/surfaces/pages/wire.js";
import { openTestStore } from "../../helpers/test-store.js";
import { API_SEED } from "../api/harness.js";

const EMAIL = "owner@acme.test";

interface World {
  app: ServerApp;
  db: Store;
  userId: string;
  issued: number;
  close(): Promise<void>;
}

async function startWorld(serviceUrl: string): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), "cookie-secure-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(API_SEED, "utf8"))),
    new Date(),
    secretBox,
  );
  const app = createServerApp({
    db,
    logger: pino({ level: "silent" }),
    secretBox,
    // What serve.ts sets from `--public-url` (or the public listener's own URL without the flag).
    capability: { serviceUrl },
    tasks: { workRoot: join(dir, "work") },
  });
  await app.start();
  const user = await findUserByEmail(db, EMAIL);
  if (!user) throw new Error(`no seeded user ${EMAIL}`);
  return {
    app,
    db,
    userId: user.id,
    issued: 0,
    async close() {
      await app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function form(body: Record<string, string>, host: string, cookie?: string): RequestInit {
  return {
    method: "POST",
    redirect: "manual",
    headers: {
      host,
      "content-type": "application/x-www-form-urlencoded",
      ...(cookie ? { cookie } : {}),
    },
    body: new URLSearchParams(body).toString(),
  };
}

/** The session cookie a redeemed link sets, the request made with `host` as its Host header and URL. */
async function signInCookie(world: World, host: string): Promise<string> {
  // Each link is issued a quarter hour after the last (still valid now): the 3-per-15-minutes limit is not under test.
  world.issued += 1;
  const nowMs = Date.now() + world.issued * 16 * 60_000;
  // The link is bound to the browser that asked for it (its sign-in cookie), as the sign-in form does.
  const browser = randomBytes(32).toString("base64url");
  const issued = await issueSignInLink(world.db, {
    userId: world.userId,
    next: "/dashboard",
    nowMs,
    browserHash: browserHashOf(browser),
  });
  if (issued.state !== "issued") throw new Error("the link was throttled");
  const answer = await world.app.listeners.public.request(
    `http://${host}${PAGE_PATHS.signInLink}`,
    form(
      { token: issued.token, [CSRF_FIELD]: browserFormTokenFor(browser) },
      host,
      `${SIGN_IN_BROWSER_COOKIE}=${browser}`,
    ),
  );
  expect(answer.status).toBe(303);
  const session = answer.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  return session ?? "";
}

/** The clearing cookie sign-out sets. */
async function signOutCookie(world: World, host: string): Promise<string> {
  const session = await startWebSession(world.app.deps, world.userId, false);
  const id = session.cookie.slice(`${SESSION_COOKIE}=`.length);
  const answer = await world.app.listeners.public.request(
    `http://${host}${PAGE_PATHS.signOut}`,
    form({ [CSRF_FIELD]: csrfTokenFor(id) }, host, session.cookie),
  );
  expect(answer.status).toBe(303);
  return answer.headers.get("set-cookie") ?? "";
}

describe("the session cookie's Secure flag follows --public-url, never the Host header", () => {
  let https: World;
  let http: World;
  beforeAll(async () => {
    [https, http] = await Promise.all([
      startWorld("https://baton.example.com"),
      startWorld("http://10.0.0.5:8080"),
    ]);
  });
  afterAll(async () => {
    await Promise.all([https?.close(), http?.close()]);
  });

  // A TLS front that forwards `Host: 127.0.0.1:8080` (nginx's proxy_pass default) must not strip Secure.
  it.each(["127.0.0.1:8080", "localhost", "[::1]", "baton.example.com"])(
    "--public-url https://…: Secure on sign-in and sign-out whatever the Host (%s)",
    async (host) => {
      expect(await signInCookie(https, host)).toMatch(/; Secure$/);
      expect(await signOutCookie(https, host)).toMatch(/; Secure$/);
    },
  );

  // A plain-http service must never set a cookie the browser would then refuse to send back over http.
  it.each(["baton.example.com", "10.0.0.5:8080", "127.0.0.1"])(
    "--public-url http://…: no Secure whatever the Host (%s)",
    async (host) => {
      const cookie = await signInCookie(http, host);
      expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
      expect(cookie).not.toContain("Secure");
      expect(await signOutCookie(http, host)).not.toContain("Secure");
    },
  );
});
