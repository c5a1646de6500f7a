// Reads the lease from Proxy-Authorization: `Basic base64("baton:<lease>")` (what clients send for
// `http://baton:<lease>@proxy` in HTTP_PROXY) or `Bearer <lease>`. Pure.
import { LEASE_PROXY_USER } from "../wire.js";

const LEASE = /^[\x21-\x7e]{1,512}$/;

export function leaseFromProxyAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme = "", credentials = ""] = header.trim().split(/\s+/, 2);
  let lease: string | undefined;
  if (scheme.toLowerCase() === "bearer") lease = credentials;
  if (scheme.toLowerCase() === "basic") {
    const decoded = Buffer.from(credentials, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon !== -1 && decoded.slice(0, colon) === LEASE_PROXY_USER) lease = decoded.slice(colon + 1);
  }
  return lease !== undefined && LEASE.test(lease) ? lease : null;
}
