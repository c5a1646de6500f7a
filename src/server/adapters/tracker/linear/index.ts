// The tracker's real adapter: Linear's GraphQL API and OAuth 2.0 (with PKCE), and what the install flow needs.
export { createLinearTracker, LINEAR_TRACKER_KIND, type LinearTrackerOptions } from "./adapter.js";
export { TrackerApiError } from "./errors.js";
export { createGraphqlClient, DEFAULT_GRAPHQL_POLICY, type GraphqlPolicy } from "./graphql.js";
export { type AuthorizationPurpose, buildAuthorizationUrl, exchangeCode, refreshTokens } from "./oauth.js";
export { challengeOf, createPkceVerifier } from "./pkce.js";
export { type LinearViewer, VIEWER } from "./queries.js";
