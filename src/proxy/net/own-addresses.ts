// The proxy's own addresses (every interface of its machine): a destination there would reach the proxy or the
// services beside it, so the policy denies them whatever the rules say. Refreshed now and then, as interfaces
// come and go.
import { networkInterfaces } from "node:os";
import ipaddr from "ipaddr.js";

export function readOwnAddresses(extra: readonly string[] = []): Set<string> {
  const own = new Set<string>();
  const add = (text: string) => {
    try {
      own.add(ipaddr.parse(text.split("%")[0]!).toString());
    } catch {
      // not an address: nothing to deny
    }
  };
  for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) add(entry.address);
  for (const address of extra) add(address);
  return own;
}

export function createOwnAddresses(
  refreshMs = 5_000,
  extra: readonly string[] = [],
): () => ReadonlySet<string> {
  let cached = readOwnAddresses(extra);
  let at = Date.now();
  return () => {
    if (Date.now() - at > refreshMs) {
      cached = readOwnAddresses(extra);
      at = Date.now();
    }
    return cached;
  };
}
