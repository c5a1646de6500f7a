// The catalogue: every literal encoding of a private, loopback and metadata target is parsed to the
// address it means and denied, table-driven. Each row is [how the host is written, the range it must land in].
import { describe, expect, it } from "vitest";
import {
  compilePolicy,
  decideAddresses,
  decideBeforeResolution,
  parseAuthority,
  parseTargetHost,
} from "../../../src/proxy/policy/index.js";

const NO_RULES = compilePolicy({ allow: [], deny: [] });
const NOBODY = new Set<string>();

const DENIED: [string, string][] = [
  // 127/8 loopback in every IPv4 spelling resolvers accept
  ["127.0.0.1", "loopback"],
  ["127.1", "loopback"],
  ["127.0.1", "loopback"],
  ["2130706433", "loopback"],
  ["0x7f000001", "loopback"],
  ["0X7F000001", "loopback"],
  ["0x7f.1", "loopback"],
  ["0x7f.0.0.1", "loopback"],
  ["0x7f.0x0.0x0.0x1", "loopback"],
  ["0177.0.0.1", "loopback"],
  ["0177.1", "loopback"],
  ["017700000001", "loopback"],
  ["127.000.000.001", "loopback"],
  ["127.0.0.1.", "loopback"],
  ["127.255.255.254", "loopback"],
  ["127.42.42.42", "loopback"],
  ["0x7f.0xff.0xff.0xfe", "loopback"],
  ["0x07f.1", "loopback"],
  ["0x0000007f.1", "loopback"],
  ["0X7F.1", "loopback"],
  ["0x7f.0.0.0x1", "loopback"],
  ["0x7f.0.00.01", "loopback"],
  ["0000177.0.0.1", "loopback"],
  ["0177.0.0.01", "loopback"],
  ["127.0.0.0x1", "loopback"],
  ["127.1.", "loopback"],
  ["0x7f.1.", "loopback"],
  // full-width digits and dots, and other characters that fold to digits, as URL parsers read them
  ["１２７.０.０.１", "loopback"],
  ["127。0。0。1", "loopback"],
  ["①②⑦.0.0.1", "loopback"],
  ["０ｘ７ｆ.１", "loopback"],
  // 0/8
  ["0.0.0.0", "this_network"],
  ["0", "this_network"],
  ["0x0", "this_network"],
  ["0.0.0.1", "this_network"],
  ["00.00.00.00", "this_network"],
  ["0.0.0.0.", "this_network"],
  // metadata and link-local
  ["169.254.169.254", "link_local_metadata"],
  ["2852039166", "link_local_metadata"],
  ["0xa9fea9fe", "link_local_metadata"],
  ["0xa9.0xfe.0xa9.0xfe", "link_local_metadata"],
  ["0251.0376.0251.0376", "link_local_metadata"],
  ["169.254.43518", "link_local_metadata"],
  ["169.16689662", "link_local_metadata"],
  ["169.254.169.254.", "link_local_metadata"],
  ["169.254.0.1", "link_local_metadata"],
  ["169.0xfe.0xa9fe", "link_local_metadata"],
  ["0xA9FEA9FE", "link_local_metadata"],
  ["025177524776", "link_local_metadata"],
  ["0251.0xfe.43518", "link_local_metadata"],
  ["100.100.100.200", "metadata"],
  ["[fd00:ec2::254]", "metadata"],
  ["[FD00:EC2:0:0:0:0:0:254]", "metadata"],
  // RFC 1918 and shared space
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["012.0.0.1", "private"],
  ["0xa.0.0.1", "private"],
  ["167772161", "private"],
  ["10.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.254", "private"],
  ["0xac100001", "private"],
  ["192.168.0.1", "private"],
  ["192.168.1", "private"],
  ["0xc0.0xa8.0.1", "private"],
  ["3232235521", "private"],
  ["0300.0250.0.1", "private"],
  ["0xc0a80001", "private"],
  ["030052000001", "private"],
  ["0x0a000001", "private"],
  ["012.0.0.01", "private"],
  ["2886729729", "private"],
  ["100.64.0.1", "shared_address_space"],
  ["100.127.255.254", "shared_address_space"],
  // other special-purpose IPv4
  ["192.0.0.8", "ietf_protocol_assignments"],
  ["192.0.0.170", "ietf_protocol_assignments"],
  ["192.0.2.1", "documentation"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["192.88.99.1", "6to4_relay_anycast"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["250.1.2.3", "reserved"],
  ["255.255.255.255", "limited_broadcast"],
  ["4294967295", "limited_broadcast"],
  ["0xffffffff", "limited_broadcast"],
  // IPv6 loopback, unspecified and their spellings
  ["[::1]", "loopback"],
  ["[0:0:0:0:0:0:0:1]", "loopback"],
  ["[0000:0000:0000:0000:0000:0000:0000:0001]", "loopback"],
  ["[::0:1]", "loopback"],
  ["[::]", "unspecified"],
  ["[0::0]", "unspecified"],
  ["[0:0::1]", "loopback"],
  ["[::0001]", "loopback"],
  ["[0000::0001]", "loopback"],
  ["[::1%25lo]", "loopback"],
  // IPv4-mapped and IPv4-compatible: unmapped, then judged as IPv4
  ["[::ffff:127.0.0.1]", "loopback"],
  ["[::FFFF:7F00:1]", "loopback"],
  ["[0:0:0:0:0:ffff:127.0.0.1]", "loopback"],
  ["[::ffff:169.254.169.254]", "link_local_metadata"],
  ["[::ffff:a9fe:a9fe]", "link_local_metadata"],
  ["[::ffff:10.0.0.1]", "private"],
  ["[::ffff:192.168.0.1]", "private"],
  ["[::127.0.0.1]", "loopback"],
  ["[::7f00:1]", "loopback"],
  ["[::a9fe:a9fe]", "link_local_metadata"],
  ["[::10.1.2.3]", "private"],
  ["[::0.0.0.2]", "this_network"],
  ["[::2]", "this_network"],
  ["[::ffff:0:0]", "this_network"],
  ["[::ffff:7f00:0001]", "loopback"],
  ["[0::ffff:7f00:1]", "loopback"],
  ["[::FFFF:A9FE:A9FE]", "link_local_metadata"],
  ["[::ffff:169.254.169.254%25eth0]", "link_local_metadata"],
  ["[::ffff:0a00:0001]", "private"],
  ["[::ffff:255.255.255.255]", "limited_broadcast"],
  // NAT64, 6to4, Teredo and the rest of the IPv6 registry
  ["[64:ff9b::7f00:1]", "nat64"],
  ["[64:ff9b::169.254.169.254]", "nat64"],
  ["[64:ff9b:1::a00:1]", "nat64_local"],
  ["[100::1]", "discard_only"],
  ["[2001::1]", "teredo"],
  ["[2001:0:4136:e378:8000:63bf:3fff:fdd2]", "teredo"],
  ["[2001:db8::1]", "documentation"],
  ["[2001:DB8:0:0:0:0:0:1]", "documentation"],
  ["[2001:2::1]", "ietf_protocol_assignments"],
  ["[2001:10::1]", "ietf_protocol_assignments"],
  ["[2001:0:7f00:1::]", "teredo"],
  ["[2001:0:808:808::80ff:fffe]", "teredo"],
  ["[64:ff9b:1:7f00:1::]", "nat64_local"],
  ["[2002:7f00:1::]", "6to4"],
  ["[2002:a9fe:a9fe::1]", "6to4"],
  ["[3fff::1]", "documentation"],
  ["[5f00::1]", "srv6_sids"],
  ["[fc00::1]", "unique_local"],
  ["[fd12:3456::1]", "unique_local"],
  ["[fc00::]", "unique_local"],
  ["[fdff:ffff::]", "unique_local"],
  ["[fe80::1]", "link_local"],
  ["[fe80::1%eth0]", "link_local"],
  ["[fe80::1%25eth0]", "link_local"],
  ["[FE80::A9FE:A9FE]", "link_local"],
  ["[febf::1]", "link_local"],
  ["[fe9f::1]", "link_local"],
  ["[FE80::1%25ETH0]", "link_local"],
  ["[fec0::1]", "site_local"],
  ["[ff02::1]", "multicast"],
  ["[ff05::1:3]", "multicast"],
  ["[ff00::]", "multicast"],
  ["[ff0e::1]", "multicast"],
  // outside 2000::/3
  ["[1::1]", "not_global_unicast"],
  ["[4000::1]", "not_global_unicast"],
  ["[::ffff:0:7f00:1]", "not_global_unicast"],
];

const INVALID = [
  "1.2.3.4.5",
  "08.0.0.1",
  "0x100.0.0.1",
  "4294967296",
  "256.0.0.1",
  "127.0.0.0x",
  "[127.0.0.1]",
  "[::1",
  "host%2f",
  "a..b",
  "-bad.test",
  "exa mple.test",
  "%31%32%37.0.0.1",
  "127.0.0.1%09",
  "0x.0x.0x.0x",
  "00x7f.1",
  "4294967297",
  "0xffffffffffff",
  "[::127.1]",
  "[::ffff:1.2.3]",
  "[1:2:3:4:5:6:7:8:9]",
  "[::1]x",
];

const LOCKED_NAMES = [
  "localhost",
  "LOCALHOST",
  "localhost.",
  "api.localhost",
  "a.b.LocalHost.",
  "metadata.google.internal",
  "Metadata.Google.Internal.",
  "metadata",
  "instance-data",
  "metadata.azure.com",
  "metadata.goog",
  "instance-data.ec2.internal",
  "100-100-100-200.aliyun.internal",
  "ｌｏｃａｌｈｏｓｔ",
];

function judge(host: string) {
  const parsed = parseAuthority(`${host}:443`);
  if (!parsed.ok) return { invalid: parsed.reason };
  const facts = { target: parsed.value, method: null };
  const early = decideBeforeResolution(facts, NO_RULES);
  if (early) return { verdict: early, range: null };
  if (parsed.value.host.kind !== "ip") return { name: parsed.value.host.host };
  const { verdict, checks } = decideAddresses(facts, [parsed.value.host.address], NO_RULES, NOBODY);
  return { verdict, range: checks[0]!.class?.range ?? null };
}

/**
 * NAT64, 6to4 and Teredo addresses lead to the IPv4 address they carry. An operator may open those ranges, but an
 * address leading to loopback, metadata, link-local or this network stays denied whatever the rules say.
 */
const OPENED_TRANSLATION = compilePolicy({
  allow: [{ name: "translators", cidr: ["64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32"] }],
  deny: [],
});
const THROUGH_TRANSLATION: [string, string][] = [
  ["64:ff9b::a9fe:a9fe", "nat64 address leading to 169.254.169.254 link_local_metadata"],
  ["64:ff9b::127.0.0.1", "nat64 address leading to 127.0.0.1 loopback"],
  ["64:ff9b::6464:64c8", "nat64 address leading to 100.100.100.200 metadata"],
  ["64:ff9b:1::7f00:1", "nat64_local address leading to 127.0.0.1 loopback"],
  ["64:ff9b:1:7f00:1::", "nat64_local address leading to 127.0.1.0 loopback"],
  ["64:ff9b:1:a9:fe:a9fe::", "nat64_local address leading to 169.254.169.254 link_local_metadata"],
  ["2002:7f00:1::", "6to4 address leading to 127.0.0.1 loopback"],
  ["2002:a9fe:a9fe::1", "6to4 address leading to 169.254.169.254 link_local_metadata"],
  ["2001:0:7f00:1::", "teredo address leading to 127.0.0.1 loopback"],
  ["2001:0:808:808::80ff:fffe", "teredo address leading to 127.0.0.1 loopback"],
  ["2001:0:808:808::5601:5601", "teredo address leading to 169.254.169.254 link_local_metadata"],
];

describe("the literal catalogue", () => {
  it.each(THROUGH_TRANSLATION)("%s stays denied with the translators opened: %s", (address, reason) => {
    const facts = {
      target: { host: { kind: "ip" as const, family: 6 as const, address, host: address }, port: 443 },
      method: null,
    };
    const { verdict } = decideAddresses(facts, [address], OPENED_TRANSLATION, NOBODY);
    expect(verdict).toMatchObject({ allowed: false, reason });
  });

  it.each([
    "64:ff9b::808:808",
    "2002:808:808::1",
    "64:ff9b:1:808:8:800::",
    "64:ff9b:1::808:808",
    "2001:0:808:808::f7f7:f7f7",
  ])("%s, leading to a global address, is opened by the operator's rule", (address) => {
    const facts = {
      target: { host: { kind: "ip" as const, family: 6 as const, address, host: address }, port: 443 },
      method: null,
    };
    expect(decideAddresses(facts, [address], OPENED_TRANSLATION, NOBODY).verdict).toMatchObject({
      allowed: true,
      rule: "translators",
    });
  });

  it("has at least 100 denied literal encodings", () => {
    expect(DENIED.length).toBeGreaterThanOrEqual(100);
  });

  it.each(DENIED)("%s is denied as %s", (host, range) => {
    const result = judge(host);
    expect(result.verdict?.allowed).toBe(false);
    expect(result.range).toBe(range);
  });

  it.each(INVALID)("%s is not a valid target", (host) => {
    expect(judge(host).invalid).toBeTypeOf("string");
  });

  it.each(LOCKED_NAMES)("the name %s is denied before resolution", (host) => {
    const result = judge(host);
    expect(result.verdict).toMatchObject({ allowed: false, rule: "locked_name" });
  });

  it.each([
    ["93.184.216.34", "93.184.216.34"],
    ["0x5db8d822", "93.184.216.34"],
    ["[2606:2800:220:1:248:1893:25c8:1946]", "2606:2800:220:1:248:1893:25c8:1946"],
    ["[::ffff:93.184.216.34]", "::ffff:5db8:d822"],
    ["8.8.8.8.", "8.8.8.8"],
  ])("a global address %s passes as %s", (host, canonical) => {
    const result = judge(host);
    expect(result.verdict).toMatchObject({ allowed: true, rule: "global" });
    const parsed = parseTargetHost(host);
    expect(parsed.ok && parsed.value.kind === "ip" && parsed.value.address).toBe(canonical);
  });
});
