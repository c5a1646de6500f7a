// The lease check every proxied request passes first. A missing, unknown or expired lease is 407; a lease source
// that cannot answer (baton serve down, wrong proxy token) is 502 so the sandbox does not take it for a refusal.
import type { IncomingHttpHeaders } from "node:http";
import type { ProxyContext } from "./context.js";
import { leaseFromProxyAuthorization } from "./lease/credentials.js";
import type { LeasePolicy } from "./lease/policy.js";
import { noteLeaseFailure, refuseThrottledSource } from "./lease-failures.js";
import { PROXY_ERRORS, PROXY_HEADERS, type ProxyError } from "./wire.js";

export type LeaseCheck =
  | { ok: true; lease: string; policy: LeasePolicy }
  | { ok: false; error: ProxyError; reason: string };

/** The lease a request carries in Proxy-Authorization, or null. */
export function leaseOf(headers: IncomingHttpHeaders): string | null {
  const header = headers[PROXY_HEADERS.proxyAuthorization];
  return leaseFromProxyAuthorization(Array.isArray(header) ? header[0] : header);
}

/** `source` is the client socket's peer address: unknown leases from it are throttled (lease-failures.ts). */
export async function checkLease(
  lease: string | null,
  context: ProxyContext,
  source?: string,
): Promise<LeaseCheck> {
  const throttled = refuseThrottledSource(context, source);
  if (throttled) {
    return {
      ok: false,
      error: throttled,
      reason: `too many unknown or expired leases from this address; retry after ${throttled.retryAfterSeconds} s`,
    };
  }
  if (lease === null) {
    return {
      ok: false,
      error: PROXY_ERRORS.leaseRequired,
      reason: "no sandbox lease in Proxy-Authorization",
    };
  }
  try {
    const policy = await context.leases.lookup(lease);
    if (policy === null) {
      noteLeaseFailure(context, source);
      return {
        ok: false,
        error: PROXY_ERRORS.leaseRequired,
        reason: "the sandbox lease is unknown or expired",
      };
    }
    return { ok: true, lease, policy };
  } catch (error) {
    context.logger.error(
      { err: error instanceof Error ? error.message : String(error) },
      "lease lookup failed",
    );
    return { ok: false, error: PROXY_ERRORS.leaseCheckFailed, reason: "the lease could not be checked" };
  }
}
