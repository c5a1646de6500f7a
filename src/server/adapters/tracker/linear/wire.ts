// Linear's wire constants in one place (its documented OAuth 2.0 and GraphQL protocol): paths below the API and
// web bases, the authorization parameters, the rate-limit signals, and the GraphQL operation names the adapter
// sends (the loopback fake in test/helpers/fake-tracker.ts answers by these names).

export const LINEAR_PATHS = {
  /** Below the web base (`--tracker-web-url`). */
  authorize: "/oauth/authorize",
  /** Below the API base (`--tracker-api-url`). */
  token: "/oauth/token",
  graphql: "/graphql",
} as const;

/** Read the member's or the organisation's issues, assign, comment and attach: nothing wider. */
export const LINEAR_SCOPES = ["read", "write"] as const;
/** `actor=app`: the workspace's connection acts as the app (its own user), not as the admin who installed it. */
export const LINEAR_APP_ACTOR = "app";

export const LINEAR_RATE_LIMIT = {
  /** GraphQL `errors[].extensions.code` of a request over the limit. */
  errorCode: "RATELIMITED",
  /** When the request budget refills: UTC epoch milliseconds. */
  resetHeader: "x-ratelimit-requests-reset",
  retryAfterHeader: "retry-after",
  status: 429,
} as const;

/** The message prefix Linear gives an `issue(id:)` that matches nothing. */
export const LINEAR_NOT_FOUND_PREFIX = "Entity not found";

/** Linear's workflow state types: an issue in one of these is no longer open. */
export const LINEAR_CLOSED_STATE_TYPES = ["completed", "canceled"] as const;
/** Work on the issue has started. */
export const LINEAR_STARTED_STATE_TYPE = "started";

export const LINEAR_OPERATIONS = {
  viewer: "BatonViewer",
  searchIssues: "BatonSearchIssues",
  findIssue: "BatonFindIssue",
  assignIssue: "BatonAssignIssue",
  linkTask: "BatonLinkTask",
  createComment: "BatonCreateComment",
} as const;
