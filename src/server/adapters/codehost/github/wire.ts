// GitHub's wire constants the adapter names itself (Octokit knows the routes): the API version every request
// carries, the raw media type, the user agent and the GraphQL mutations for a
// pull request's draft state.
export const GITHUB_API_VERSION = "2022-11-28";
export const GITHUB_API_VERSION_HEADER = "x-github-api-version";
/** `GET contents/{path}` with this Accept answers the file's bytes instead of a JSON envelope. */
export const GITHUB_RAW_MEDIA_TYPE = "application/vnd.github.raw+json";
export const GITHUB_USER_AGENT = "baton-codehost";

/** The GraphQL mutations that turn a pull request into a draft and back (REST has none). */
export const GITHUB_DRAFT_MUTATIONS = {
  toDraft:
    "mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
  ready:
    "mutation($id: ID!) { markPullRequestReadyForReview(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
} as const;
