// Every IANA special-purpose range the proxy denies (IPv4 and IPv6 registries), and the ranges no operator rule
// may open. IPv6 outside 2000::/3 is denied as a whole; the entries inside it are listed here.

export interface SpecialRange {
  cidr: string;
  /** Short name used in audit lines and refusals, e.g. `loopback`. */
  name: string;
  /** A locked range stays denied whatever the operator's allow rules say. */
  locked: boolean;
}

const range = (cidr: string, name: string, locked = false): SpecialRange => ({ cidr, name, locked });

export const SPECIAL_RANGES_V4: readonly SpecialRange[] = [
  range("0.0.0.0/8", "this_network", true),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "shared_address_space"),
  range("100.100.100.200/32", "metadata", true),
  range("127.0.0.0/8", "loopback", true),
  range("169.254.0.0/16", "link_local_metadata", true),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "ietf_protocol_assignments"),
  range("192.0.2.0/24", "documentation"),
  range("192.88.99.0/24", "6to4_relay_anycast"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "benchmarking"),
  range("198.51.100.0/24", "documentation"),
  range("203.0.113.0/24", "documentation"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved"),
  range("255.255.255.255/32", "limited_broadcast"),
];

/** Inside 2000::/3; everything outside it is denied as `not_global_unicast` (or by the entries below first). */
export const SPECIAL_RANGES_V6: readonly SpecialRange[] = [
  range("::/128", "unspecified", true),
  range("::1/128", "loopback", true),
  range("64:ff9b::/96", "nat64"),
  range("64:ff9b:1::/48", "nat64_local"),
  range("100::/64", "discard_only"),
  range("2001::/23", "ietf_protocol_assignments"),
  range("2001::/32", "teredo"),
  range("2001:db8::/32", "documentation"),
  range("2002::/16", "6to4"),
  range("3fff::/20", "documentation"),
  range("5f00::/16", "srv6_sids"),
  range("fc00::/7", "unique_local"),
  range("fd00:ec2::254/128", "metadata", true),
  range("fe80::/10", "link_local", true),
  range("fec0::/10", "site_local"),
  range("ff00::/8", "multicast"),
];

/** The only IPv6 block holding globally reachable unicast addresses. */
export const GLOBAL_UNICAST_V6 = "2000::/3";

/**
 * Names denied before resolution: they mean this machine or a cloud provider's instance metadata wherever they
 * resolve. Compared lowercase without a trailing dot; `localhost` also covers every `*.localhost`.
 */
export const LOCKED_NAMES: readonly string[] = [
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.azure.com",
  "metadata.packet.net",
  "metadata.platformequinix.com",
  "metadata.tencentyun.com",
  "100-100-100-200.aliyun.internal",
];
