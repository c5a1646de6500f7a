// A fake GitHub on loopback, for tests: no code host is reachable from the test machine, so this speaks GitHub's
// documented protocol (REST under `/api/v3` as GitHub Enterprise Server lays it out, the web pages and git's
// smart HTTP at the root). It checks the App JWT (RS256 against the App's public key, iss, exp/iat), mints
// installation tokens `ghs_…` that expire, sends the `x-ratelimit-*` headers on every API answer, and has knobs
// for a spent primary limit, secondary limits, 5xx answers, merging a pull request and moving its clock; every
// request is logged. Pushes and clones need Basic `x-access-token:<installation token>`, so a pull request can
// be opened only for a branch that was really pushed.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CodehostAppSettings } from "../../../src/server/adapters/integrations/settings.js";
import type { ApiAnswer } from "./api.js";
import { makeAppKeyPair } from "./auth.js";
import { answerApi, rateHeadersOf } from "./gate.js";
import { bareDirOf, commitRootFile, createBareRepo, headOf, mergeBranch, serveGit } from "./git.js";
import { type FakeIssue, FakeState } from "./state.js";
import { answerTokenExchange, issueCode } from "./user-auth.js";

export type { FakeIssue, LoggedRequest } from "./state.js";

export const FAKE_API_PREFIX = "/api/v3";

export interface FakeCodehost {
  state: FakeState;
  /** The web base (installation pages, git). */
  webUrl: string;
  apiUrl: string;
  /** The App's settings as `baton serve` would load them (its private key made at run time). */
  settings: CodehostAppSettings;
  addRepo(fullName: string, options?: { defaultBranch?: string }): Promise<void>;
  /** `users`: the logins that can access it (default `<account>-admin`), as GET /user/installations lists it. */
  addInstallation(id: number, account: string, repos: string[], users?: string[]): void;
  addIssue(repo: string, issue: { title: string; body?: string; assignee?: string }): FakeIssue;
  commitFile(repo: string, path: string, content: string): Promise<void>;
  branchHead(repo: string, branch: string): Promise<string | null>;
  /** The pull request's merge button: merges its head into its base and marks it merged. */
  merge(repo: string, number: number): Promise<void>;
  /** The primary limit is spent until `resetInS` seconds from now. */
  exhaustPrimary(resetInS: number): void;
  /** The next `count` API calls answer a secondary limit (403 + retry-after, or only the message when null). */
  secondaryLimit(count: number, retryAfterS: number | null): void;
  /** The next `count` API calls answer only after `ms`. */
  stallNext(count: number, ms: number): void;
  /** The next `count` API calls answer `status`. */
  failNext(count: number, status?: number): void;
  close(): Promise<void>;
}

export async function startFakeCodehost(
  options: { appId?: string; appSlug?: string } = {},
): Promise<FakeCodehost> {
  const root = await mkdtemp(join(tmpdir(), "fake-codehost-"));
  const keys = makeAppKeyPair();
  const appId = options.appId ?? "4242";
  const appSlug = options.appSlug ?? "baton-test";
  const oauthClient = { clientId: "Iv1.fakeclient0042", clientSecret: `fake-client-secret-${appId}` };
  const state = new FakeState();
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const webUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const apiUrl = `${webUrl}${FAKE_API_PREFIX}`;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", webUrl);
    if (url.pathname.startsWith(`${FAKE_API_PREFIX}/`)) return handleApi(req, res, url);
    const install = /^\/apps\/([^/]+)\/installations\/new$/.exec(url.pathname);
    if (install && req.method === "GET") {
      // GitHub's "Setup URL": back to the App's page with the installation and the state it was given.
      const back = new URL(state.setup.url);
      back.searchParams.set("installation_id", String(state.setup.installationId));
      back.searchParams.set("setup_action", "install");
      const given = url.searchParams.get("state");
      if (given !== null) back.searchParams.set("state", given);
      // With "Request user authorization (OAuth) during installation" GitHub also authorizes the user who installed.
      const installation = state.installations.get(state.setup.installationId);
      const login = state.setup.login ?? installation?.users[0];
      if (state.setup.code && login) back.searchParams.set("code", issueCode(state, login));
      log(req, url.pathname, "none", install[1] === appSlug ? 302 : 404);
      if (install[1] !== appSlug) return void res.writeHead(404).end();
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      const text = await readBody(req);
      const params = new URLSearchParams(url.search);
      const form = String(req.headers["content-type"] ?? "").includes("json")
        ? Object.entries(JSON.parse(text || "{}") as Record<string, string>)
        : [...new URLSearchParams(text)];
      for (const [k, v] of form) params.set(k, String(v));
      const answer = answerTokenExchange(state, oauthClient, params);
      log(req, url.pathname, "none", answer.status);
      // JSON only when asked for it (Accept: application/json); GitHub's default is a form-encoded body.
      const json = String(req.headers.accept ?? "").includes("json");
      const body = answer.body as Record<string, unknown>;
      res.writeHead(answer.status, {
        "content-type": json ? "application/json; charset=utf-8" : "application/x-www-form-urlencoded",
      });
      return void res.end(
        json
          ? JSON.stringify(body)
          : new URLSearchParams(
              Object.entries(body).map(([k, v]): [string, string] => [k, String(v)]),
            ).toString(),
      );
    }
    const gitPath = /^\/([^/]+\/[^/]+)\.git(\/info\/refs|\/git-upload-pack|\/git-receive-pack)$/.exec(
      url.pathname,
    );
    if (gitPath) {
      const token = basicPassword(req.headers.authorization);
      const installation = token ? state.reposOf(token) : undefined;
      if (!installation?.repos.includes(gitPath[1]!)) {
        log(req, url.pathname, token ? "basic" : "none", 401);
        return void res.writeHead(401, { "www-authenticate": 'Basic realm="GitHub"' }).end();
      }
      log(req, url.pathname, "basic", 200);
      return serveGit(req, res, { root, pathInfo: url.pathname, query: url.search.slice(1) });
    }
    log(req, url.pathname, "none", 404);
    res.writeHead(404).end();
  }

  async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.slice(FAKE_API_PREFIX.length);
    // The scheme is case-insensitive (RFC 9110), as GitHub reads it: auth-app sends `bearer <JWT>`.
    const bearer = /^(?:Bearer|token) (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const isApp = path.startsWith("/app/");
    const auth = !bearer ? "none" : isApp ? "jwt" : "token";
    const text = await readBody(req);
    const send = (answer: ApiAnswer) => {
      log(req, `${path}${url.search}`, auth, answer.status);
      res.writeHead(answer.status, {
        ...rateHeadersOf(state, path),
        ...(answer.text === undefined ? { "content-type": "application/json; charset=utf-8" } : {}),
        ...answer.headers,
      });
      res.end(answer.text ?? (answer.body === undefined ? "" : JSON.stringify(answer.body)));
    };
    const request = {
      method: req.method ?? "GET",
      path,
      query: url.searchParams,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      accept: String(req.headers.accept ?? ""),
      apiUrl,
      webUrl,
    };
    send(await answerApi(state, { appId, publicKeyPem: keys.publicKeyPem }, request, bearer));
  }

  const log = (
    req: IncomingMessage,
    path: string,
    auth: "jwt" | "token" | "basic" | "none",
    status: number,
  ) => state.log.push({ method: req.method ?? "GET", path, auth, status });
  const repo = (fullName: string) => {
    const found = state.repos.get(fullName);
    if (!found) throw new Error(`the fake code host has no repository ${fullName}`);
    return found;
  };

  return {
    state,
    webUrl,
    apiUrl,
    settings: { appId, appSlug, privateKeyPem: keys.privateKeyPem, apiUrl, webUrl, ...oauthClient },
    async addRepo(fullName, { defaultBranch = "main" } = {}) {
      const dir = bareDirOf(root, fullName);
      await createBareRepo(dir, defaultBranch);
      state.repos.set(fullName, { fullName, id: state.nextId++, defaultBranch, dir, issues: [] });
    },
    addInstallation(id, account, repos, users = [`${account}-admin`]) {
      state.installations.set(id, { id, account, repos: [...repos], users: [...users] });
    },
    addIssue(fullName, input) {
      const target = repo(fullName);
      const issue: FakeIssue = {
        id: state.nextId++,
        number: target.issues.length + 1,
        title: input.title,
        body: input.body ?? "",
        state: "open",
        assignees: input.assignee ? [input.assignee] : [],
        comments: [],
      };
      target.issues.push(issue);
      return issue;
    },
    commitFile: (fullName, path, content) => {
      const target = repo(fullName);
      return commitRootFile(target.dir, target.defaultBranch, path, content);
    },
    branchHead: (fullName, branch) => headOf(repo(fullName).dir, branch),
    async merge(fullName, number) {
      const target = repo(fullName);
      const pull = target.issues.find((i) => i.number === number && i.pull);
      if (!pull?.pull) throw new Error(`no pull request ${number} in ${fullName}`);
      await mergeBranch(target.dir, pull.pull.base, pull.pull.head);
      pull.pull.merged = true;
      pull.pull.mergedAt = new Date(state.now()).toISOString();
      pull.state = "closed";
    },
    exhaustPrimary(resetInS) {
      state.rate = { ...state.rate, remaining: 0, resetMs: state.now() + resetInS * 1000 };
    },
    secondaryLimit(count, retryAfterS) {
      state.secondary = { count, retryAfterS };
    },
    stallNext(count, ms) {
      state.stalling = { count, ms };
    },
    failNext(count, status = 502) {
      state.failing = { count, status };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}

function basicPassword(header: string | undefined): string | undefined {
  const match = /^Basic (.+)$/.exec(header ?? "");
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  return decoded.startsWith("x-access-token:") ? decoded.slice("x-access-token:".length) : undefined;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
