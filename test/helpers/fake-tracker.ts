// A fake Linear on loopback. No tracker is reachable from this machine, so the adapter and the install flow are
// tested against this server, which speaks Linear's documented protocol: the OAuth 2.0 authorization page
// (`GET /oauth/authorize`, answering at once with a 302 to the redirect URI as if the signed-in user approved,
// after checking the client id, the registered redirect URI and the PKCE S256 challenge), the token endpoint
// (`POST /oauth/token`, form-encoded: authorization_code with the PKCE verifier checked, refresh_token rotating the
// refresh token), and `POST /graphql` with a Bearer check. The GraphQL endpoint does not parse GraphQL: it
// answers by the operation's name (the adapter's operations, src/server/adapters/tracker/linear/wire.ts; from the
// document when the body has no `operationName`, as the SDK's client sends none) from the variables,
// which is enough to hold Linear's semantics (filters, `issue(id:)` by id or identifier, mutations' effects).
// A rate-limit knob answers RATELIMITED with the reset header, and every request is logged.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { LINEAR_OPERATIONS } from "../../src/server/adapters/tracker/linear/wire.js";

export interface FakeUser {
  id: string;
  name: string;
  organizationId: string;
  /** The OAuth application's own user (what an `actor=app` token acts as). */
  app?: boolean;
}
export interface FakeIssue {
  id: string;
  identifier: string;
  title: string;
  description?: string;
  organizationId: string;
  /** Linear's workflow state type: backlog, unstarted, started, completed, canceled, triage. */
  stateType: string;
  assigneeId: string | null;
}
export interface FakeRequest {
  method: string;
  path: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  /** The user the bearer token acts as, when it is good. */
  userId?: string;
  form?: Record<string, string>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  userId: string;
}
interface Token {
  userId: string;
  expiresAtMs: number;
}

export interface FakeTrackerOptions {
  clientId: string;
  clientSecret: string;
  /** The redirect URIs registered on the OAuth application. */
  redirectUris: string[];
  organizations: { id: string; name: string }[];
  users: FakeUser[];
  issues?: FakeIssue[];
  /** Access tokens' lifetime (Linear's are a day). */
  expiresInSeconds?: number;
}

export class FakeTracker {
  readonly log: FakeRequest[] = [];
  readonly issues: FakeIssue[];
  readonly comments: { issueId: string; body: string; userId: string }[] = [];
  readonly attachments: { issueId: string; url: string; title: string | null; userId: string }[] = [];
  /** Who is signed in at the tracker when the browser reaches the authorization page. */
  signedInUserId: string;
  /** The user declines on the authorization page (302 with `error=access_denied`). */
  decline = false;
  /** The next n GraphQL requests are rate limited, with the budget refilling after `resetInMs`. */
  rateLimit: { remaining: number; resetInMs: number; status: number } = {
    remaining: 0,
    resetInMs: 0,
    status: 400,
  };
  /** The next n GraphQL requests are never answered (a tracker that hangs). */
  hang = 0;
  /** Link attachments refused (as an organisation's settings may): the adapter falls back to a comment. */
  refuseAttachments = false;
  expiresInSeconds: number;
  private readonly grants = new Map<string, Grant>();
  private readonly tokens = new Map<string, Token>();
  private readonly refreshTokens = new Map<string, string>();
  private server: Server | undefined;
  url = "";

  constructor(private readonly options: FakeTrackerOptions) {
    this.issues = [...(options.issues ?? [])];
    this.signedInUserId = options.users.find((u) => !u.app)?.id ?? "";
    this.expiresInSeconds = options.expiresInSeconds ?? 86_399;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(error) }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** Every access and refresh token the fake issued (canaries: none may leak). */
  issuedSecrets(): string[] {
    return [...this.tokens.keys(), ...this.refreshTokens.keys()];
  }

  /** Makes every token of `userId` expire now (as if a day had passed). */
  expireTokensOf(userId: string): void {
    for (const token of this.tokens.values()) if (token.userId === userId) token.expiresAtMs = Date.now() - 1;
  }

  calls(operationName: string): FakeRequest[] {
    return this.log.filter((r) => r.operationName === operationName);
  }

  private user(id: string): FakeUser {
    const user = this.options.users.find((u) => u.id === id);
    if (!user) throw new Error(`fake tracker: no user ${id}`);
    return user;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await readBody(req);
    if (req.method === "GET" && url.pathname === "/oauth/authorize") return this.authorize(url, res);
    if (req.method === "POST" && url.pathname === "/oauth/token") return this.token(body, res);
    if (req.method === "POST" && url.pathname === "/graphql") return this.graphql(req, body, res);
    this.log.push({ method: req.method ?? "", path: url.pathname });
    send(res, 404, { error: "not found" });
  }

  private authorize(url: URL, res: ServerResponse) {
    const q = Object.fromEntries(url.searchParams);
    this.log.push({ method: "GET", path: url.pathname, form: q });
    if (q.client_id !== this.options.clientId) return send(res, 400, { error: "invalid_client" });
    if (!q.redirect_uri || !this.options.redirectUris.includes(q.redirect_uri))
      return send(res, 400, {
        error: "invalid_request",
        error_description: "redirect_uri is not registered",
      });
    if (q.response_type !== "code" || q.code_challenge_method !== "S256" || !q.code_challenge)
      return send(res, 400, {
        error: "invalid_request",
        error_description: "PKCE S256 and response_type=code",
      });
    const back = new URL(q.redirect_uri);
    if (q.state) back.searchParams.set("state", q.state);
    if (this.decline) {
      back.searchParams.set("error", "access_denied");
    } else {
      const signedIn = this.user(this.signedInUserId);
      // actor=app: the token acts as the application's own user in the approver's organisation.
      const actor =
        q.actor === "app"
          ? this.options.users.find((u) => u.app && u.organizationId === signedIn.organizationId)
          : signedIn;
      if (!actor) return send(res, 400, { error: "invalid_request", error_description: "no app user" });
      const code = randomBytes(20).toString("hex");
      this.grants.set(code, {
        clientId: q.client_id,
        redirectUri: q.redirect_uri,
        challenge: q.code_challenge,
        userId: actor.id,
      });
      back.searchParams.set("code", code);
    }
    res.writeHead(302, { location: back.href });
    res.end();
  }

  private token(body: string, res: ServerResponse) {
    const form = Object.fromEntries(new URLSearchParams(body));
    this.log.push({ method: "POST", path: "/oauth/token", form });
    if (form.client_id !== this.options.clientId || form.client_secret !== this.options.clientSecret)
      return send(res, 401, { error: "invalid_client" });
    let userId: string | undefined;
    if (form.grant_type === "authorization_code") {
      const grant = form.code ? this.grants.get(form.code) : undefined;
      if (form.code) this.grants.delete(form.code);
      const challenge = createHash("sha256")
        .update(form.code_verifier ?? "")
        .digest("base64url");
      if (!grant || grant.redirectUri !== form.redirect_uri || grant.challenge !== challenge)
        return send(res, 400, {
          error: "invalid_grant",
          error_description: "code, redirect_uri or verifier",
        });
      userId = grant.userId;
    } else if (form.grant_type === "refresh_token") {
      userId = form.refresh_token ? this.refreshTokens.get(form.refresh_token) : undefined;
      if (!userId)
        return send(res, 400, { error: "invalid_grant", error_description: "unknown refresh token" });
      this.refreshTokens.delete(form.refresh_token!);
    } else return send(res, 400, { error: "unsupported_grant_type" });
    const access = `lin_oauth_${randomBytes(16).toString("hex")}`;
    const refresh = `lin_refresh_${randomBytes(16).toString("hex")}`;
    this.tokens.set(access, { userId, expiresAtMs: Date.now() + this.expiresInSeconds * 1000 });
    this.refreshTokens.set(refresh, userId);
    send(res, 200, {
      access_token: access,
      token_type: "Bearer",
      expires_in: this.expiresInSeconds,
      scope: "read,write",
      refresh_token: refresh,
    });
  }

  private graphql(req: IncomingMessage, body: string, res: ServerResponse) {
    const {
      operationName: named,
      query = "",
      variables = {},
    } = JSON.parse(body) as { operationName?: string; query?: string; variables?: Record<string, unknown> };
    // GraphQL over HTTP makes `operationName` optional: a document of one operation names it itself, which is
    // all @linear/sdk's client sends (the document and the variables).
    const operationName = named ?? /^\s*(?:query|mutation)\s+(\w+)/.exec(query)?.[1];
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const token = bearer ? this.tokens.get(bearer) : undefined;
    const entry: FakeRequest = { method: "POST", path: "/graphql", variables };
    if (operationName) entry.operationName = operationName;
    if (token && token.expiresAtMs > Date.now()) entry.userId = token.userId;
    this.log.push(entry);
    if (!entry.userId)
      return send(res, 401, {
        errors: [
          {
            message: "Authentication required, not authenticated",
            extensions: { code: "AUTHENTICATION_ERROR" },
          },
        ],
      });
    if (this.hang > 0) {
      this.hang -= 1;
      return;
    }
    if (this.rateLimit.remaining > 0) {
      this.rateLimit.remaining -= 1;
      res.setHeader("x-ratelimit-requests-reset", String(Date.now() + this.rateLimit.resetInMs));
      return send(res, this.rateLimit.status, {
        errors: [{ message: "Rate limit exceeded", extensions: { code: "RATELIMITED" } }],
      });
    }
    const viewer = this.user(entry.userId);
    const answer = this.operation(operationName, variables, viewer);
    send(res, 200, answer);
  }

  private operation(name: string | undefined, v: Record<string, unknown>, viewer: FakeUser): unknown {
    const visible = this.issues.filter((i) => i.organizationId === viewer.organizationId);
    const find = (id: unknown) => visible.find((i) => i.id === id || i.identifier === id);
    const notFound = {
      data: null,
      errors: [{ message: "Entity not found: Issue", extensions: { code: "INVALID_INPUT" } }],
    };
    switch (name) {
      case LINEAR_OPERATIONS.viewer: {
        const org = this.options.organizations.find((o) => o.id === viewer.organizationId)!;
        return { data: { viewer: { id: viewer.id, name: viewer.name, organization: org } } };
      }
      case LINEAR_OPERATIONS.searchIssues: {
        const filter = v.filter as {
          state?: { type?: { nin?: string[] } };
          or?: { assignee: { id?: { eq: string }; null?: boolean } }[];
          title?: { containsIgnoreCase?: string };
        };
        const nodes = visible
          .filter((i) => !filter.state?.type?.nin?.includes(i.stateType))
          .filter(
            (i) =>
              !filter.or ||
              filter.or.some((f) =>
                f.assignee.null ? i.assigneeId === null : i.assigneeId === f.assignee.id?.eq,
              ),
          )
          .filter(
            (i) =>
              !filter.title?.containsIgnoreCase ||
              i.title.toLowerCase().includes(filter.title.containsIgnoreCase.toLowerCase()),
          )
          .slice(0, typeof v.first === "number" ? v.first : 50);
        return { data: { issues: { nodes: nodes.map((i) => this.issueView(i)) } } };
      }
      case LINEAR_OPERATIONS.findIssue: {
        const issue = find(v.id);
        return issue ? { data: { issue: this.issueView(issue) } } : notFound;
      }
      case LINEAR_OPERATIONS.assignIssue: {
        const issue = find(v.id);
        if (!issue) return notFound;
        issue.assigneeId = String(v.assigneeId);
        return { data: { issueUpdate: { success: true } } };
      }
      case LINEAR_OPERATIONS.linkTask: {
        const issue = find(v.issueId);
        if (!issue) return notFound;
        if (this.refuseAttachments)
          return {
            data: null,
            errors: [{ message: "Attachments are disabled", extensions: { code: "FORBIDDEN" } }],
          };
        this.attachments.push({
          issueId: issue.id,
          url: String(v.url),
          title: typeof v.title === "string" ? v.title : null,
          userId: viewer.id,
        });
        return { data: { attachmentLinkURL: { success: true } } };
      }
      case LINEAR_OPERATIONS.createComment: {
        const issue = find(v.issueId);
        if (!issue) return notFound;
        this.comments.push({ issueId: issue.id, body: String(v.body), userId: viewer.id });
        return { data: { commentCreate: { success: true, comment: { id: `cmt_${this.comments.length}` } } } };
      }
      default:
        return { errors: [{ message: `the fake tracker does not know operation ${name}` }] };
    }
  }

  private issueView(issue: FakeIssue) {
    return {
      id: issue.id,
      identifier: issue.identifier,
      title: issue.title,
      description: issue.description ?? null,
      url: `${this.url}/issue/${issue.identifier}`,
      state: { type: issue.stateType },
      assignee: issue.assigneeId ? { id: issue.assigneeId } : null,
    };
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
