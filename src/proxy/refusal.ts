// The answers the proxy makes itself. A refusal carries `Baton-Proxy-Error: <code>` and a short text naming the
// host and what to do about it. Pure: returns the status, headers and body; the server writes them.
import { PROXY_AUTH_REALM, PROXY_ERRORS, PROXY_HEADERS, type ProxyError } from "./wire.js";

export interface Refusal {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  407: "Proxy Authentication Required",
  421: "Misdirected Request",
  429: "Too Many Requests",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function fixFor(error: ProxyError, host: string): string {
  switch (error.code) {
    case PROXY_ERRORS.destinationDenied.code:
    case PROXY_ERRORS.ruleDenied.code:
      return `If the task needs ${host}, ask for access: baton env request-capability --repo <owner/name> --capability <kind> --target ${host} --reason "<what needs it>"`;
    case PROXY_ERRORS.leaseFailuresThrottled.code:
      return "Wait for Retry-After, then send the sandbox's current lease (rerun baton env activate if it changed).";
    case PROXY_ERRORS.leaseRequired.code:
      return "Send the sandbox lease as the proxy password: HTTPS_PROXY=http://baton:$BATON_SANDBOX_LEASE@<proxy>; rerun baton env activate to write it into ~/.baton/environment.sh";
    case PROXY_ERRORS.dnsFailed.code:
      return "Check the host name; the proxy resolves names itself.";
    case PROXY_ERRORS.upstreamUnreachable.code:
    case PROXY_ERRORS.upstreamTimeout.code:
      return "The destination did not answer; try again later (this is not a policy refusal).";
    case PROXY_ERRORS.invalidTarget.code:
      return "Send http:// requests in absolute form and https through CONNECT host:port.";
    case PROXY_ERRORS.secretUnusable.code:
      return "Tell a workspace owner: the secret's stored value must be header text (no control characters or line breaks).";
    case PROXY_ERRORS.answerEncodingUnsupported.code:
      return "The destination ignored Accept-Encoding: identity; the proxy reads gzip, deflate and br only.";
    case PROXY_ERRORS.upstreamHeadersTooLarge.code:
      return "The destination answered with more header bytes than the proxy reads (16 KiB); this is not a policy refusal, ask the destination's owner.";
    case PROXY_ERRORS.smtpDenied.code:
      return 'Outbound mail ports (25, 465, 587) are closed by default; send mail through an HTTP API, or ask the operator to set "allowSmtp": true in the proxy config (or start baton proxy with --allow-smtp).';
    case PROXY_ERRORS.connectionLimit.code:
      return "The proxy is at its limit of open connections (limits.maxConnections in its config); close idle connections and retry, or tell the operator.";
    case PROXY_ERRORS.leaseConnectionLimit.code:
      return "This sandbox holds as many connections through the proxy as one lease may (limits.maxConnectionsPerLease); close idle ones (keep-alive pools, open tunnels) and retry.";
    case PROXY_ERRORS.hostMismatch.code:
      return `Where a placeholder can be swapped, the CONNECT host, the TLS server name and the Host header must all be ${host}; open a separate CONNECT for any other host.`;
    case PROXY_ERRORS.sniMismatch.code:
      return "CONNECT to the host the TLS hello names: the proxy does not tunnel to one host under another's server name.";
    case PROXY_ERRORS.ambiguousCredentials.code:
      return "Send one placeholder in one credential header (e.g. Authorization: Bearer <placeholder>); the proxy will not guess which one is meant.";
    case PROXY_ERRORS.leaseCheckFailed.code:
      return "The proxy could not check the lease with baton serve; try again, or tell the operator.";
    default:
      return "Try again shortly.";
  }
}

export function renderRefusal(
  error: ProxyError,
  input: { host: string; reason: string; requestId: string },
): Refusal {
  const what =
    error.status === 403 ? `${input.host} is denied (${input.reason})` : `${input.host}: ${input.reason}`;
  const body = `baton proxy: ${what}. ${fixFor(error, input.host)} (request ${input.requestId})\n`;
  const headers: Record<string, string> = {
    "content-type": "text/plain; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    [PROXY_HEADERS.error]: error.code,
    [PROXY_HEADERS.requestId]: input.requestId,
  };
  if (error.status === 407) headers[PROXY_HEADERS.proxyAuthenticate] = PROXY_AUTH_REALM;
  // A throttled refusal (lease-failures.ts) carries its wait.
  const wait = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
  if (wait !== undefined) headers[PROXY_HEADERS.retryAfter] = String(wait);
  return { status: error.status, headers, body };
}

/** The refusal as raw HTTP/1.1 bytes, for a CONNECT whose socket has no response object. */
export function rawRefusal(refusal: Refusal): string {
  const lines = [`HTTP/1.1 ${refusal.status} ${STATUS_TEXT[refusal.status] ?? "Error"}`];
  for (const [name, value] of Object.entries(refusal.headers)) lines.push(`${name}: ${value}`);
  lines.push("connection: close");
  return `${lines.join("\r\n")}\r\n\r\n${refusal.body}`;
}
