// Who sent a request: the socket's peer, unless that peer is a front the operator trusts (`baton serve
// --trusted-proxy`), in which case X-Forwarded-For says who the front was talking to. The header is a list each
// hop appends its own peer to, so only its right end is written by fronts we trust; the client is the rightmost
// address that is not a trusted front. Anything left of that is the client's own to write and is never read.
// Without a trusted front the header is ignored. Pure: addresses in, an address out.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** A trusted front: one address (a whole-length prefix) or a CIDR range. */
export interface TrustedRange {
  readonly network: Address;
  readonly prefix: number;
  /** As the operator wrote it, for messages. */
  readonly text: string;
}

export type TrustedProxies = readonly TrustedRange[];

export const NO_TRUSTED_PROXIES: TrustedProxies = [];

/**
 * `10.0.0.5`, `10.0.0.0/8`, `::1` or `fd00::/8`; null for anything else (a host name, an out-of-range prefix, the
 * shorthand IPv4 forms such as `10.1` that some parsers accept).
 */
export function parseTrustedProxy(text: string): TrustedRange | null {
  const [address, prefix, extra] = text.trim().split("/");
  if (address === undefined || extra !== undefined || isIP(address) === 0) return null;
  const network = plain(ipaddr.parse(address));
  const full = network.kind() === "ipv4" ? 32 : 128;
  if (prefix === undefined) return { network, prefix: full, text };
  if (!/^\d{1,3}$/.test(prefix)) return null;
  // An IPv4-mapped range (::ffff:10.0.0.0/104) is the IPv4 range it maps.
  const bits = Number(prefix) - (network.kind() === "ipv4" && isIP(address) === 6 ? 96 : 0);
  if (bits < 0 || bits > full) return null;
  return { network, prefix: bits, text };
}

/** Whether an address (as a socket or X-Forwarded-For gives it) is one of the trusted fronts. */
export function isTrustedProxy(address: string, trusted: TrustedProxies): boolean {
  const parsed = parseAddress(address);
  return parsed !== null && trusted.some((range) => inRange(parsed, range));
}

/**
 * The client's address: `peer` itself unless it is a trusted front; then, walking X-Forwarded-For from its right
 * end, the first address that is not a trusted front. A malformed entry ends the walk at the hop that appended it
 * (a front we trust would not write one), and a header of trusted fronts only gives its leftmost.
 */
export function clientAddressOf(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies,
): string | undefined {
  if (peer === undefined || forwardedFor === undefined || !isTrustedProxy(peer, trusted)) return peer;
  let client = peer;
  const hops = forwardedFor.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(hops[i]!.trim());
    if (hop === null) break;
    client = hop.toString();
    if (!trusted.some((range) => inRange(hop, range))) break;
  }
  return client;
}

function parseAddress(text: string): Address | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIP(bare) === 0) return null;
  return plain(ipaddr.parse(bare));
}

/** An IPv4-mapped IPv6 address is its IPv4 address (a dual-stack socket reports IPv4 peers that way). */
function plain(address: Address): Address {
  return address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

function inRange(address: Address, range: TrustedRange): boolean {
  if (address.kind() !== range.network.kind()) return false;
  return (address as ipaddr.IPv4).match(range.network as ipaddr.IPv4, range.prefix);
}
