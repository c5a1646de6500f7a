// IPv6 addresses that carry an IPv4 address for a translator or tunnel to reach: NAT64 (RFC 6052: the well-known
// 64:ff9b::/96, and the local-use 64:ff9b:1::/48 under every prefix length an operator may have chosen inside
// it), 6to4 (2002:<v4>::/48) and Teredo (2001:0:<server v4>:flags:port:<client v4 inverted>). An operator rule may
// open these ranges, but never to an IPv4 address no rule can open (loopback, metadata, link-local). Pure.
import ipaddr from "ipaddr.js";

/** RFC 6052 section 2.2: the bytes holding the IPv4 address for prefixes /48, /56, /64 and /96 (byte 8 is the
 * reserved u octet). A prefix inside 64:ff9b:1::/48 is at least that long. */
const NAT64_LAYOUTS = [
  [6, 7, 9, 10],
  [7, 9, 10, 11],
  [9, 10, 11, 12],
  [12, 13, 14, 15],
];

/** The IPv4 addresses an address in the named special-purpose range may lead to (none for other ranges). */
export function carriedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const bytes = address.toByteArray();
  const pick = (at: readonly number[], mask = 0) => new ipaddr.IPv4(at.map((i) => bytes[i]! ^ mask));
  switch (range) {
    case "nat64":
      return [pick([12, 13, 14, 15])];
    case "nat64_local":
      return NAT64_LAYOUTS.map((at) => pick(at));
    case "6to4":
      return [pick([2, 3, 4, 5])];
    case "teredo":
      return [pick([4, 5, 6, 7]), pick([12, 13, 14, 15], 0xff)];
    default:
      return [];
  }
}
