// The MCP TypeScript SDK 1.x's OAuthClientProvider, kept in memory as an app would keep it on disk: what the SDK
// saves is returned unchanged (client information and tokens carry the SDK's `issuer` stamp). Who approves in the
// browser is the test's choice: a cookie-keeping fetch (test/integration/oauth) or Chromium (test/browser).
import type { OAuthClientProvider, OAuthDiscoveryState } from "mcp-sdk-v1/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "mcp-sdk-v1/shared/auth.js";

/** Takes the person through the authorization URL; resolves with the code the redirect carried back. */
export type Approve = (authorizationUrl: URL) => Promise<string>;

export class InMemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  discovery: OAuthDiscoveryState | undefined;
  /** Every authorization URL the SDK sent the browser to, and the code the last one came back with. */
  authorizations: URL[] = [];
  code = "";
  constructor(
    private readonly redirectUri: string,
    private readonly approve: Approve,
  ) {}
  get redirectUrl() {
    return this.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    // What a desktop MCP client sends: no application_type (the service takes native as the default).
    return {
      client_name: "MCP SDK 1.x test client",
      redirect_uris: [this.redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = "";
    if (scope === "all" || scope === "discovery") this.discovery = undefined;
  }
  async redirectToAuthorization(authorizationUrl: URL) {
    this.authorizations.push(authorizationUrl);
    this.code = await this.approve(authorizationUrl);
  }
}
