// GitHub's REST wire constants (docs "Getting started with the REST API", "Rate limits for the REST API",
// "Authenticating as a GitHub App installation"): the headers every request carries, the rate-limit headers the
// client reads, and the routes the adapter calls. Nothing else names them.
export const GITHUB_API_VERSION = "2022-11-28";
export const GITHUB_MEDIA_TYPE = "application/vnd.github+json";
/** `GET contents/{path}` with this Accept answers the file's bytes instead of a JSON envelope. */
export const GITHUB_RAW_MEDIA_TYPE = "application/vnd.github.raw+json";
export const GITHUB_USER_AGENT = "baton-codehost";

export const GITHUB_HEADERS = {
  accept: "accept",
  apiVersion: "x-github-api-version",
  userAgent: "user-agent",
  authorization: "authorization",
  link: "link",
  retryAfter: "retry-after",
  rateLimit: "x-ratelimit-limit",
  rateRemaining: "x-ratelimit-remaining",
  rateReset: "x-ratelimit-reset",
  rateUsed: "x-ratelimit-used",
  rateResource: "x-ratelimit-resource",
} as const;

/** On the web host, not the API: where an OAuth `code` is traded for a user-to-server token. */
export const GITHUB_OAUTH_TOKEN_PATH = "/login/oauth/access_token";

/** The user name git sends with an installation token as its password (HTTP Basic). */
export const INSTALLATION_TOKEN_GIT_USER = "x-access-token";

const enc = encodeURIComponent;
const repoPath = (repo: string) => {
  const [owner, name] = repo.split("/");
  return `/repos/${enc(owner ?? "")}/${enc(name ?? "")}`;
};

export const GITHUB_ROUTES = {
  installation: (id: string) => `/app/installations/${enc(id)}`,
  accessTokens: (id: string) => `/app/installations/${enc(id)}/access_tokens`,
  installationRepos: "/installation/repositories",
  /** The App's installations the user-to-server token's user can access. */
  userInstallations: "/user/installations",
  repo: repoPath,
  pulls: (repo: string) => `${repoPath(repo)}/pulls`,
  pull: (repo: string, n: number) => `${repoPath(repo)}/pulls/${n}`,
  contents: (repo: string, path: string) =>
    `${repoPath(repo)}/contents/${path.split("/").map(enc).join("/")}`,
  issue: (repo: string, n: number) => `${repoPath(repo)}/issues/${n}`,
  assignees: (repo: string, n: number) => `${repoPath(repo)}/issues/${n}/assignees`,
  comments: (repo: string, n: number) => `${repoPath(repo)}/issues/${n}/comments`,
  searchIssues: "/search/issues",
  /** GitHub.com's GraphQL endpoint beside the REST API (`https://api.github.com/graphql`). */
  graphql: "/graphql",
} as const;

/** The GraphQL mutations that turn a pull request into a draft and back (REST has none). */
export const GITHUB_DRAFT_MUTATIONS = {
  toDraft:
    "mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
  ready:
    "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
} as const;
