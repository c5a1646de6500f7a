// The fake code host's REST routes (GitHub's documented paths, status codes and the fields the adapter reads),
// answered from FakeState. Authorization is checked by the server before a route runs: `app` routes see the App
// (JWT), the rest an installation (token), and a repository outside the installation is a 404 as on GitHub.
import { newInstallationToken } from "./auth.js";
import { headOf, readFileAt } from "./git.js";
import type { FakeInstallation, FakeIssue, FakeRepo, FakeState } from "./state.js";

export interface ApiAnswer {
  status: number;
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown>;
  accept: string;
  /** The API's own base URL (for Link headers and `url` fields). */
  apiUrl: string;
  webUrl: string;
}

const notFound: ApiAnswer = { status: 404, body: { message: "Not Found" } };
const invalid = (errors: unknown[]): ApiAnswer => ({
  status: 422,
  body: { message: "Validation Failed", errors },
});

export function issueJson(_state: FakeState, repo: FakeRepo, issue: FakeIssue, req: ApiRequest) {
  const assignee = issue.assignees[0];
  return {
    id: issue.id,
    number: issue.number,
    title: issue.title,
    body: issue.body,
    state: issue.state,
    html_url: `${req.webUrl}/${repo.fullName}/${issue.pull ? "pull" : "issues"}/${issue.number}`,
    repository_url: `${req.apiUrl}/repos/${repo.fullName}`,
    assignee: assignee ? { login: assignee } : null,
    assignees: issue.assignees.map((login) => ({ login })),
    comments: issue.comments.length,
    ...(issue.pull
      ? { pull_request: { url: `${req.apiUrl}/repos/${repo.fullName}/pulls/${issue.number}` } }
      : {}),
  };
}

const pullJson = (repo: FakeRepo, issue: FakeIssue, req: ApiRequest) => ({
  id: issue.id,
  node_id: `PR_${issue.id}`,
  number: issue.number,
  title: issue.title,
  body: issue.body,
  draft: issue.pull!.draft,
  state: issue.state,
  html_url: `${req.webUrl}/${repo.fullName}/pull/${issue.number}`,
  head: { ref: issue.pull!.head },
  base: { ref: issue.pull!.base },
  merged: issue.pull!.merged,
  merged_at: issue.pull!.mergedAt,
});

export async function answerAppRoute(state: FakeState, req: ApiRequest): Promise<ApiAnswer> {
  const match = /^\/app\/installations\/(\d+)(\/access_tokens)?$/.exec(req.path);
  const installation = match ? state.installations.get(Number(match[1])) : undefined;
  if (!match || !installation) return notFound;
  if (match[2] && req.method === "POST") {
    const token = newInstallationToken();
    const expiresAtMs = state.now() + state.tokenTtlMs;
    state.tokens.set(token, { installationId: installation.id, expiresAtMs });
    return {
      status: 201,
      body: { token, expires_at: new Date(expiresAtMs).toISOString(), repository_selection: "selected" },
    };
  }
  if (!match[2] && req.method === "GET")
    return {
      status: 200,
      body: { id: installation.id, account: { login: installation.account, type: "Organization" } },
    };
  return notFound;
}

export async function answerInstallationRoute(
  state: FakeState,
  installation: FakeInstallation,
  req: ApiRequest,
): Promise<ApiAnswer> {
  if (req.path === "/installation/repositories" && req.method === "GET") return listRepos(installation, req);
  if (req.path === "/search/issues" && req.method === "GET") return search(state, installation, req);
  if (req.path === "/graphql" && req.method === "POST") return draftMutation(state, installation, req);
  const match = /^\/repos\/([^/]+\/[^/]+)(\/.*)?$/.exec(req.path);
  const repo = match && installation.repos.includes(match[1]!) ? state.repos.get(match[1]!) : undefined;
  if (!match || !repo) return notFound;
  const rest = match[2] ?? "";
  const route = `${req.method} ${rest.replace(/\/\d+/g, "/:n").replace(/^\/contents\/.*/, "/contents/*")}`;
  const number = Number(/\/(\d+)/.exec(rest)?.[1]);
  const issue = repo.issues.find((i) => i.number === number);
  switch (route) {
    case "GET ":
      return {
        status: 200,
        body: { id: repo.id, full_name: repo.fullName, default_branch: repo.defaultBranch },
      };
    case "GET /contents/*": {
      const path = decodeURIComponent(rest.slice("/contents/".length));
      const text = await readFileAt(repo.dir, repo.defaultBranch, path);
      if (text === null) return notFound;
      return req.accept.includes("raw")
        ? { status: 200, text, headers: { "content-type": "application/vnd.github.raw+json; charset=utf-8" } }
        : {
            status: 200,
            body: { type: "file", encoding: "base64", content: Buffer.from(text).toString("base64") },
          };
    }
    case "POST /pulls":
      return openPull(state, repo, req);
    case "GET /pulls": {
      const head = req.query.get("head");
      const all = req.query.get("state") === "all";
      const pulls = repo.issues.filter(
        (i) =>
          i.pull &&
          (all || i.state === "open") &&
          (!head || `${repo.fullName.split("/")[0]}:${i.pull.head}` === head),
      );
      return { status: 200, body: pulls.map((i) => pullJson(repo, i, req)) };
    }
    case "GET /pulls/:n":
      return issue?.pull ? { status: 200, body: pullJson(repo, issue, req) } : notFound;
    case "PATCH /pulls/:n": {
      if (!issue?.pull) return notFound;
      if (typeof req.body.title === "string") issue.title = req.body.title;
      if (typeof req.body.body === "string") issue.body = req.body.body;
      return { status: 200, body: pullJson(repo, issue, req) };
    }
    case "GET /issues/:n":
      return issue ? { status: 200, body: issueJson(state, repo, issue, req) } : notFound;
    case "POST /issues/:n/assignees": {
      if (!issue) return notFound;
      for (const login of (req.body.assignees as string[] | undefined) ?? [])
        if (!issue.assignees.includes(login)) issue.assignees.push(login);
      return { status: 201, body: issueJson(state, repo, issue, req) };
    }
    case "POST /issues/:n/comments": {
      if (!issue) return notFound;
      if (typeof req.body.body !== "string")
        return invalid([{ resource: "IssueComment", field: "body", code: "missing_field" }]);
      const comment = { id: state.nextId++, body: req.body.body, user: "baton-app[bot]" };
      issue.comments.push(comment);
      return { status: 201, body: { id: comment.id, body: comment.body, user: { login: comment.user } } };
    }
    default:
      return notFound;
  }
}

function listRepos(installation: FakeInstallation, req: ApiRequest): ApiAnswer {
  const perPage = Math.min(100, Number(req.query.get("per_page") ?? 30) || 30);
  const page = Number(req.query.get("page") ?? 1) || 1;
  const slice = installation.repos.slice((page - 1) * perPage, page * perPage);
  const last = Math.max(1, Math.ceil(installation.repos.length / perPage));
  const link = (p: number, rel: string) =>
    `<${req.apiUrl}/installation/repositories?per_page=${perPage}&page=${p}>; rel="${rel}"`;
  const links = [
    ...(page < last ? [link(page + 1, "next"), link(last, "last")] : []),
    ...(page > 1 ? [link(1, "first")] : []),
  ];
  return {
    status: 200,
    body: { total_count: installation.repos.length, repositories: slice.map((full_name) => ({ full_name })) },
    headers: links.length ? { link: links.join(", ") } : {},
  };
}

async function openPull(state: FakeState, repo: FakeRepo, req: ApiRequest): Promise<ApiAnswer> {
  const head = String(req.body.head ?? "");
  const base = String(req.body.base ?? repo.defaultBranch);
  if (!head || (await headOf(repo.dir, head)) === null)
    return invalid([{ resource: "PullRequest", field: "head", code: "invalid" }]);
  const owner = repo.fullName.split("/")[0];
  if (repo.issues.some((i) => i.pull?.head === head && i.state === "open"))
    return invalid([
      {
        resource: "PullRequest",
        code: "custom",
        message: `A pull request already exists for ${owner}:${head}.`,
      },
    ]);
  const issue: FakeIssue = {
    id: state.nextId++,
    number: repo.issues.length + 1,
    title: String(req.body.title ?? ""),
    body: String(req.body.body ?? ""),
    state: "open",
    assignees: [],
    comments: [],
    pull: { head, base, merged: false, mergedAt: null, draft: req.body.draft === true },
  };
  repo.issues.push(issue);
  return { status: 201, body: pullJson(repo, issue, req) };
}

function search(state: FakeState, installation: FakeInstallation, req: ApiRequest): ApiAnswer {
  const words = (req.query.get("q") ?? "").split(/\s+/).filter(Boolean);
  const repos = words.filter((w) => w.startsWith("repo:")).map((w) => w.slice(5));
  if (repos.some((r) => !installation.repos.includes(r)))
    return invalid([
      {
        message:
          "The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.",
      },
    ]);
  const terms = words.filter((w) => !w.includes(":")).map((w) => w.toLowerCase());
  const onlyIssues = words.includes("is:issue");
  const onlyOpen = words.includes("is:open");
  const items = [];
  for (const name of repos.length ? repos : installation.repos) {
    const repo = state.repos.get(name)!;
    for (const issue of repo.issues) {
      if (onlyIssues && issue.pull) continue;
      if (onlyOpen && issue.state !== "open") continue;
      const text = `${issue.title}\n${issue.body}`.toLowerCase();
      if (terms.every((t) => text.includes(t))) items.push(issueJson(state, repo, issue, req));
    }
  }
  const perPage = Math.min(100, Number(req.query.get("per_page") ?? 30) || 30);
  return {
    status: 200,
    body: { total_count: items.length, incomplete_results: false, items: items.slice(0, perPage) },
  };
}

/** GraphQL, only the two draft mutations; like GitHub, a failure is a 200 with `errors`. */
function draftMutation(state: FakeState, installation: FakeInstallation, req: ApiRequest): ApiAnswer {
  const query = String(req.body.query ?? "");
  const id = String((req.body.variables as { id?: unknown } | undefined)?.id ?? "");
  const toDraft = query.includes("convertPullRequestToDraft");
  if (!toDraft && !query.includes("markPullRequestReadyForReview"))
    return { status: 200, body: { errors: [{ message: "the fake knows only the draft mutations" }] } };
  for (const name of installation.repos)
    for (const issue of state.repos.get(name)?.issues ?? [])
      if (issue.pull && `PR_${issue.id}` === id) {
        issue.pull.draft = toDraft;
        return { status: 200, body: { data: { pullRequest: { isDraft: toDraft } } } };
      }
  return {
    status: 200,
    body: { errors: [{ message: `Could not resolve to a node with the global id of '${id}'` }] },
  };
}
