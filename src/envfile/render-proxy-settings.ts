// The egress-proxy block of environment.sh: the proxy (with the sandbox lease as its password) in both cases of
// HTTP(S)_PROXY, loopback left direct, and the trust bundle (system CAs plus the proxy's CA) for every tool that
// reads one. Pure; the names live here only. README "Egress proxy" documents them for the sandbox driver.
import { quoteShellValue } from "./quote.js";

export interface ProxySettings {
  /** `http://host:port` of the proxy, without credentials. */
  proxyUrl: string;
  lease: string;
  /** System CAs plus the proxy's CA (PEM). */
  caBundleFile: string;
  /** The proxy's CA alone (Node adds NODE_EXTRA_CA_CERTS to its own roots). */
  proxyCaFile: string;
}

/** Set in a sandbox that has an egress proxy (its address, no credentials): activation and disclose read it. */
export const PROXY_URL_ENV = "BATON_PROXY_URL";
export const PROXY_URL_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"] as const;
export const NO_PROXY_VARIABLES = ["NO_PROXY", "no_proxy"] as const;
export const NO_PROXY_VALUE = "localhost,127.0.0.1,::1";
export const CA_BUNDLE_VARIABLES = [
  "SSL_CERT_FILE",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "GIT_SSL_CAINFO",
  "PIP_CERT",
] as const;
export const NODE_CA_VARIABLE = "NODE_EXTRA_CA_CERTS";
/** The lease travels as the proxy password for this user name (src/proxy/wire.ts LEASE_PROXY_USER). */
const PROXY_USER = "baton";

/** `http://baton:<lease>@host:port`; the lease is percent-encoded so any character is safe in the URL. */
export function proxyUrlWithLease(proxyUrl: string, lease: string): string {
  const url = new URL(proxyUrl);
  url.username = PROXY_USER;
  url.password = encodeURIComponent(lease);
  return url.toString().replace(/\/$/, "");
}

export function renderProxySettings(settings: ProxySettings): string[] {
  const withLease = proxyUrlWithLease(settings.proxyUrl, settings.lease);
  const line = (name: string, value: string) => `export ${name}=${quoteShellValue(value)}`;
  return [
    "# egress proxy: every connection out goes through baton proxy, which knows this sandbox by its lease",
    ...PROXY_URL_VARIABLES.map((name) => line(name, withLease)),
    ...NO_PROXY_VARIABLES.map((name) => line(name, NO_PROXY_VALUE)),
    ...CA_BUNDLE_VARIABLES.map((name) => line(name, settings.caBundleFile)),
    line(NODE_CA_VARIABLE, settings.proxyCaFile),
  ];
}
