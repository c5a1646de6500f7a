// The lease source that asks `baton serve` (its authenticated internal route) and caches each answer briefly,
// keyed by the lease's hash. Secret values live only in this memory; nothing is written to disk.
import { createHash } from "node:crypto";
import { ServiceError } from "../../errors.js";
import { callHttp } from "../../net/http-call.js";
import { type LeasePolicy, type LeasePolicySource, toLeasePolicy } from "./policy.js";
import { LeasePolicyResponseSchema, PROXY_INTERNAL_PATHS, PROXY_TOKEN_HEADER } from "./wire.js";

export interface HttpLeaseSourceOptions {
  serveUrl: string;
  token: string;
  cacheMs: number;
  now?: () => number;
}

export function createHttpLeaseSource(options: HttpLeaseSourceOptions): LeasePolicySource {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { until: number; policy: Promise<LeasePolicy | null> }>();
  const url = new URL(PROXY_INTERNAL_PATHS.lease, options.serveUrl).toString();

  async function fetchPolicy(lease: string): Promise<LeasePolicy | null> {
    const response = await callHttp(url, {
      method: "POST",
      headers: { "content-type": "application/json", [PROXY_TOKEN_HEADER]: options.token },
      body: JSON.stringify({ lease }),
      timeoutMs: 5_000,
    });
    if (response.status === 404) return null;
    if (response.status !== 200) {
      throw new ServiceError(
        "service_error",
        response.status === 401
          ? "baton serve refused the proxy token; give baton serve and baton proxy the same BATON_PROXY_TOKEN"
          : `baton serve answered ${response.status} to a lease lookup`,
        { status: response.status },
      );
    }
    return toLeasePolicy(LeasePolicyResponseSchema.parse(JSON.parse(response.text)));
  }

  // A cached answer is reused, but never past the lease's own expiry.
  const unexpired = (p: LeasePolicy | null) => (p && p.expiresAtMs > now() ? p : null);
  return {
    lookup(lease) {
      const key = createHash("sha256").update(lease).digest("hex");
      const at = now();
      const hit = cache.get(key);
      if (hit && hit.until > at) return hit.policy.then(unexpired);
      const policy = fetchPolicy(lease);
      cache.set(key, { until: at + options.cacheMs, policy });
      // A failed lookup is not cached: the next request asks again.
      policy.catch(() => cache.delete(key));
      if (cache.size > 10_000) for (const [k, v] of cache) if (v.until <= at) cache.delete(k);
      return policy.then(unexpired);
    },
  };
}
