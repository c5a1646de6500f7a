// The service in process on a real loopback socket (the authorization server needs Node's request and response),
// a real SQLite file seeded with fixtures/seeds/api.json, a loopback SMTP server, and a clock a test can move.
// `browse` is a minimal browser for the OAuth redirects (a cookie jar, manual redirects); Chromium is used in
// test/browser, where the pages themselves are under test.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signInWithBrowser } from "../../../src/client/browser-sign-in.js";
import { listenOnLoopback } from "../../../src/client/loopback-callback.js";
import { buildAuthorizationUrl, makeSignInSecrets } from "../../../src/client/pkce.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import {
  applySeed,
  createNodeServer,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.js";
import { dumpTestStore, openTestStore, type TestEngine } from "../../helpers/test-store.js";

export const OWNER = "owner@acme.test";
export const STRANGER = "stranger@other.test";

export interface OAuthWorld {
  url: string;
  app: ServerApp;
  db: Store;
  /** Every stored byte as text (the SQLite file, or every row on PostgreSQL), for "hashes only" checks. */
  dump(): Promise<string>;
  smtp: TestSmtpServer;
  clock: { offsetMs: number };
  /** Holds every token endpoint request this long first: clients that race each other all get their turn. */
  tokenDelay: { ms: number };
  /** Every log line the service wrote (debug level). */
  logs: string[];
  /** A web session cookie pair for `email`, as the e-mailed link would start. */
  sessionFor(email: string): Promise<string>;
  /** A browser that follows redirects itself, keeping cookies; returns each response. */
  browse(
    url: string,
    init?: { cookie?: string; method?: string; form?: Record<string, string> },
  ): Promise<Response>;
  /** The whole browser sign-in for `email`: the client in process, approval by the fetch browser. */
  signIn(email?: string): Promise<string>;
  /** The same, with what renews the access token (issue 35 B.12). */
  signInTokens(email?: string): Promise<{ accessToken: string; refreshToken: string; clientId: string }>;
  /** POST /oauth/token with grant_type=refresh_token, as a client renews its access token. */
  refresh(clientId: string, refreshToken: string): Promise<{ status: number; body: Record<string, string> }>;
  /** The same flow by hand, for a resource the client never asks for (RFC 8707); returns the token answer and
   * the approval page as shown. `clientId` signs in as that client (e.g. a Client ID Metadata Document URL)
   * instead of registering one. */
  signInFor(
    resource: string,
    email?: string,
    clientId?: string,
  ): Promise<{
    status: number;
    body: Record<string, unknown>;
    /** The client that signed in (registered here, or the one given). */
    clientId: string;
    approvalPage: string;
    /** The approval page's headers, and those of the answer to its form. */
    approvalHeaders: Headers;
    decisionHeaders: Headers;
  }>;
  close(): Promise<void>;
}

export async function startOAuthWorld(
  options: { smtp?: boolean; oauthFetch?: typeof fetch; engine?: TestEngine } = {},
): Promise<OAuthWorld> {
  const dir = await mkdtemp(join(tmpdir(), "oauth-"));
  const db = await openTestStore(dir, options.engine ? { engine: options.engine } : {});
  const secretBox = ephemeralSecretBox();
  const seed = JSON.parse(readFileSync(join(PROJECT_ROOT, "fixtures", "seeds", "api.json"), "utf8"));
  await applySeed(db, SeedDocumentSchema.parse(seed), new Date(), secretBox);
  const smtp = await startSmtpServer();
  const clock = { offsetMs: 0 };
  const logs: string[] = [];
  const capture = new (await import("node:stream")).Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const pino = (await import("pino")).default;
  const capability = { serviceUrl: "", ...(options.smtp === false ? {} : { smtpUrl: smtp.url }) };
  const app = createServerApp({
    db,
    logger: pino({ level: "debug" }, capture),
    secretBox,
    now: () => new Date(Date.now() + clock.offsetMs),
    capability,
    tasks: { workRoot: join(dir, "work") },
    ...(options.oauthFetch ? { oauthFetch: options.oauthFetch } : {}),
  });
  const tokenDelay = { ms: 0 };
  // The adapter passes the Node request and response as a second argument, which the provider needs.
  const handle = async (request: Request, bindings?: unknown) => {
    if (tokenDelay.ms > 0 && new URL(request.url).pathname === "/oauth/token")
      await new Promise((resolve) => setTimeout(resolve, tokenDelay.ms));
    return app.listeners.public.fetch(request, bindings as never);
  };
  const server: Server = createNodeServer(handle as (request: Request) => Promise<Response>);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  capability.serviceUrl = url;
  await app.start();

  const sessionFor = async (email: string) =>
    (await startWebSession(app.deps, (await findUserByEmail(db, email))!.id, false)).cookie;
  const browse: OAuthWorld["browse"] = (target, init = {}) =>
    fetch(target, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      redirect: "manual",
      headers: {
        ...(init.cookie ? { cookie: init.cookie } : {}),
        ...(init.form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
    });

  async function signInTokens(email = OWNER) {
    const { accessToken, refreshToken, clientId } = await signInWithBrowser({
      apiUrl: url,
      openBrowser: true,
      showUrl: () => {},
      timeoutMs: 60_000,
      openUrl: async (target) => {
        void approve(target, email, "approve");
      },
    });
    if (!refreshToken) throw new Error("the sign-in issued no refresh token");
    return { accessToken, refreshToken, clientId };
  }

  /** Follows the authorization through the approval page as a signed-in user would, with cookies; returns the
   * approval page, its headers and those of the answer to its form. */
  async function approve(
    start: string,
    email: string,
    decision: "approve" | "deny",
  ): Promise<{ page: string; headers: Headers; decisionHeaders: Headers }> {
    let shown = { page: "", headers: new Headers(), decisionHeaders: new Headers() };
    const jar = new Map<string, string>();
    const session = await sessionFor(email);
    const cookie = () => [session, ...[...jar].map(([k, v]) => `${k}=${v}`)].join("; ");
    let next = start;
    let method = "GET";
    let form: Record<string, string> | undefined;
    for (let hop = 0; hop < 10; hop++) {
      const answer = await browse(next, { cookie: cookie(), method, ...(form ? { form } : {}) });
      for (const set of answer.headers.getSetCookie()) {
        const [pair] = set.split(";");
        const [k, ...v] = pair!.split("=");
        jar.set(k!, v.join("="));
      }
      if (method === "POST") shown.decisionHeaders = answer.headers;
      const location = answer.headers.get("location");
      if (location) {
        const to = new URL(location, next);
        if (to.port !== new URL(url).port) {
          await fetch(to); // the client's loopback listener
          return shown;
        }
        next = to.toString();
        method = "GET";
        form = undefined;
        continue;
      }
      const page = await answer.text();
      shown = { ...shown, page, headers: answer.headers };
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
      if (!csrf) throw new Error(`no approval form at ${next} (${answer.status}): ${page.slice(0, 300)}`);
      method = "POST";
      form = { csrf, decision };
    }
    throw new Error("too many redirects");
  }

  return {
    url,
    app,
    db,
    dump: () => dumpTestStore(db, dir),
    smtp,
    clock,
    tokenDelay,
    logs,
    sessionFor,
    browse,
    async signIn(email = OWNER) {
      return (await signInTokens(email)).accessToken;
    },
    signInTokens,
    async refresh(clientId, refreshToken) {
      const answer = await fetch(`${url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "refresh_token",
          refresh_token: refreshToken,
          client_id: clientId,
        }),
      });
      return { status: answer.status, body: (await answer.json()) as Record<string, string> };
    },
    async signInFor(resource, email = OWNER, clientId?: string) {
      const client = clientId
        ? { client_id: clientId }
        : ((await (
            await fetch(`${url}/oauth/register`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                client_name: "by hand",
                application_type: "native",
                token_endpoint_auth_method: "none",
                redirect_uris: ["http://127.0.0.1/callback"],
              }),
            })
          ).json()) as { client_id: string });
      const secrets = makeSignInSecrets(randomBytes(32), randomBytes(16));
      let code = "";
      const listener = await listenOnLoopback((at) => {
        code = at.searchParams.get("code") ?? "";
        return "approved";
      });
      try {
        const start = buildAuthorizationUrl({
          authorizationEndpoint: `${url}/oauth/authorize`,
          clientId: client.client_id,
          redirectUri: listener.redirectUri,
          resource,
          scope: "baton",
          secrets,
        });
        const approval = await approve(start, email, "approve");
        const answer = await fetch(`${url}/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code,
            redirect_uri: listener.redirectUri,
            client_id: client.client_id,
            code_verifier: secrets.verifier,
            resource,
          }),
        });
        return {
          status: answer.status,
          body: (await answer.json()) as Record<string, unknown>,
          clientId: client.client_id,
          approvalPage: approval.page,
          approvalHeaders: approval.headers,
          decisionHeaders: approval.decisionHeaders,
        };
      } finally {
        await listener.close();
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.stop();
      await db.close();
      await smtp.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
