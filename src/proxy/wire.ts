// The proxy's wire constants: header names, refusal codes and their statuses, the lease scheme, and the paths the
// proxy answers itself. No other file spells these strings.

export const PROXY_HEADERS = {
  /** Names the refusal on every answer the proxy makes itself (403, 407, 502, 504, ...). */
  error: "baton-proxy-error",
  /** The request id of the audit line, on every answer the proxy makes itself. */
  requestId: "baton-proxy-request-id",
  proxyAuthorization: "proxy-authorization",
  proxyAuthenticate: "proxy-authenticate",
  retryAfter: "retry-after",
} as const;

/** Refusal codes (`Baton-Proxy-Error`) and the HTTP status each is sent with. */
export const PROXY_ERRORS = {
  invalidTarget: { code: "invalid_target", status: 400 },
  destinationDenied: { code: "destination_denied", status: 403 },
  ruleDenied: { code: "rule_denied", status: 403 },
  leaseRequired: { code: "lease_required", status: 407 },
  /** Too many unknown or expired leases from one address: refused until the window passes (Retry-After). */
  leaseFailuresThrottled: { code: "lease_failures_throttled", status: 429 },
  /** `baton serve` could not be asked about the lease (down, or the proxy token is wrong). */
  leaseCheckFailed: { code: "lease_check_failed", status: 502 },
  dnsFailed: { code: "dns_failed", status: 502 },
  upstreamUnreachable: { code: "upstream_unreachable", status: 502 },
  upstreamTimeout: { code: "upstream_timeout", status: 504 },
  /** A secret approved here has a value that cannot be sent in a header (an owner must fix the value). */
  secretUnusable: { code: "secret_unusable", status: 502 },
  /** An answer from a host with secrets came compressed in a way the proxy cannot read to scrub. */
  answerEncodingUnsupported: { code: "answer_encoding_unsupported", status: 502 },
  stopping: { code: "proxy_stopping", status: 503 },
  /** The upstream's answer headers are over Node's limit (16 KiB): no answer can be passed on. */
  upstreamHeadersTooLarge: { code: "upstream_headers_too_large", status: 502 },
  /** Outbound mail ports (SMTP_PORTS) are closed unless the operator opens them (`allowSmtp`). */
  smtpDenied: { code: "smtp_denied", status: 403 },
  /** The proxy holds `limits.maxConnections` client connections already. */
  connectionLimit: { code: "connection_limit", status: 503 },
  /** This lease holds `limits.maxConnectionsPerLease` connections already. */
  leaseConnectionLimit: { code: "lease_connection_limit", status: 429 },
  /** Placeholder path: the TLS SNI or the inner Host names another host than the CONNECT authority. */
  hostMismatch: { code: "host_mismatch", status: 421 },
  /** An opaque tunnel whose TLS hello names a host a secret of this sandbox is approved for. */
  sniMismatch: { code: "sni_mismatch", status: 403 },
  /** Two placeholders in one credential header, or two credential headers carrying placeholders. */
  ambiguousCredentials: { code: "ambiguous_credentials", status: 400 },
} as const;

/** Outbound mail submission and relay ports, closed by default (spam from a sandbox is the operator's problem). */
export const SMTP_PORTS: readonly number[] = [25, 465, 587];

export type ProxyError = (typeof PROXY_ERRORS)[keyof typeof PROXY_ERRORS];
export type ProxyErrorCode = ProxyError["code"];

/**
 * The lease travels as `Proxy-Authorization: Basic base64("baton:<lease>")` (what clients send for
 * `http://baton:<lease>@proxy:port` in HTTP_PROXY) or `Proxy-Authorization: Bearer <lease>`.
 */
export const LEASE_PROXY_USER = "baton";
export const PROXY_AUTH_REALM = 'Basic realm="baton-proxy"';

/** Origin-form paths the proxy answers itself (everything else must be absolute-form or CONNECT). */
export const PROXY_SELF_PATHS = {
  health: "/healthz",
  ca: "/ca.pem",
} as const;

/** Audit decision values. */
export const DECISIONS = { allow: "allow", deny: "deny", error: "error" } as const;

/** Substitution outcomes in audit lines. */
export const SUBSTITUTIONS = {
  swapped: "swapped",
  unapproved: "placeholder_unapproved",
  unknown: "placeholder_unknown",
} as const;
