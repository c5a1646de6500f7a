// Whether a secret's allowed hosts authorise a request's target (the PUT with `capabilityRequestId`).
import { destinationHost } from "./destination.js";
import type { NormalisedTarget } from "./target.js";

export type Authorisation = { authorised: true } | { authorised: false; why: string };

/**
 * `*.example.com` covers subdomains of example.com, not example.com itself; other entries match exactly. An entry
 * with scheme, port or path (`https://api.example.com:8443/v2/`) is compared on its host.
 */
export function hostAllowedBy(host: string, pattern: string): boolean {
  const entry = pattern.trim().toLowerCase();
  const p = (destinationHost(entry) ?? entry).replace(/\.$/, "");
  if (p.startsWith("*.")) return host.endsWith(p.slice(1)) && host.length > p.length - 1;
  return host === p;
}

/**
 * A host target needs one allowed host covering it. A non-URL resource name grants no host access, so it is
 * authorised by any secret that has allowed hosts of its own (which stay the secret's only destinations).
 */
export function authoriseSecretForTarget(
  allowedHosts: readonly string[],
  target: NormalisedTarget,
): Authorisation {
  if (allowedHosts.length === 0) {
    return { authorised: false, why: "the secret has no allowed hosts; add the host the request names" };
  }
  if (target.form === "name") return { authorised: true };
  if (allowedHosts.some((pattern) => hostAllowedBy(target.value, pattern))) return { authorised: true };
  return {
    authorised: false,
    why: `the secret's allowed hosts do not include ${target.value}, the host this request is for`,
  };
}
