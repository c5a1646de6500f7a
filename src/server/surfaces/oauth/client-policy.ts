// Which clients the authorization server accepts, by registration (RFC 7591) or by Client ID Metadata Document
// (an https client_id URL): native apps are public clients with loopback http redirects (RFC 8252 section 7.3);
// web-hosted clients (an MCP connector in a chat service) answer at https redirect URIs and may be public or hold
// a client secret. Anything else is refused with what to change. Pure: the provider's hooks call it.
import { classifyAddress, lockedNameOf } from "../../../proxy/policy/index.js";
import { API_SCOPE } from "./wire.js";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const WEB_AUTH_METHODS = new Set(["none", "client_secret_basic", "client_secret_post"]);

/** The token endpoint authentication methods any client may register with (public ones use PKCE alone). */
export const CLIENT_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;

export interface ClientMetadata {
  application_type?: unknown;
  token_endpoint_auth_method?: unknown;
  redirect_uris?: unknown;
  scope?: unknown;
}

const parse = (uri: string) => (URL.canParse(uri) ? new URL(uri) : undefined);

/**
 * Whether a URL's hostname may be a web client's: not this machine, a private network, link-local or a metadata
 * service, judged by the egress proxy's classifier (one table of address classes for the whole service). The URL
 * parser has already turned decimal, hex and octal IPv4 spellings into dotted quads; IPv4-mapped IPv6 is judged
 * as the IPv4 address it carries. A name is judged by name only: what it resolves to later is not known here.
 */
function isPublicHost(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  if (lockedNameOf(bare) !== null) return false;
  const address = classifyAddress(bare);
  return address === null || address.range === "global";
}

function refuseNative(metadata: ClientMetadata, uris: string[]): string | undefined {
  if (metadata.token_endpoint_auth_method !== "none")
    return "register with token_endpoint_auth_method none: native clients are public";
  for (const uri of uris) {
    const parsed = parse(uri);
    if (parsed?.protocol !== "http:" || !LOOPBACK_HOSTS.has(parsed.hostname))
      return `a native client's redirect_uris must be loopback http URLs such as http://127.0.0.1/callback (RFC 8252 section 7.3); ${uri} is not`;
  }
  return undefined;
}

function refuseWeb(metadata: ClientMetadata, uris: string[]): string | undefined {
  if (!WEB_AUTH_METHODS.has(String(metadata.token_endpoint_auth_method)))
    return "register a web client with token_endpoint_auth_method none, client_secret_basic or client_secret_post";
  for (const uri of uris) {
    const parsed = parse(uri);
    if (parsed?.protocol !== "https:" || !isPublicHost(parsed.hostname))
      return `a web client's redirect_uris must be https URLs on a public host such as https://app.example.com/callback; ${uri} is not (a native app registers as application_type native with a loopback http redirect)`;
  }
  return undefined;
}

/** A registered `scope` may name only the one scope the resource metadata advertises (`openid` is not offered). */
function refuseScope(scope: unknown): string | undefined {
  if (scope === undefined) return undefined;
  const values = typeof scope === "string" ? scope.split(" ").filter(Boolean) : [];
  if (typeof scope === "string" && values.every((value) => value === API_SCOPE)) return undefined;
  return `register with scope "${API_SCOPE}" or without a scope: this service issues OAuth access tokens for "${API_SCOPE}" only (no openid)`;
}

/** Why a client may not register or be used, or undefined when it may. */
export function refuseClient(metadata: ClientMetadata): string | undefined {
  const scope = refuseScope(metadata.scope);
  if (scope) return scope;
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as string[]) : [];
  if (uris.length === 0) return "register at least one redirect_uri";
  if (metadata.application_type === "native") return refuseNative(metadata, uris);
  if (metadata.application_type === "web") return refuseWeb(metadata, uris);
  return "register as application_type native (an app on the user's computer, RFC 8252) or web (an https-hosted client)";
}
