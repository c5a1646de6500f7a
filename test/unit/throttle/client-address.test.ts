// Who sent a request (issue 35 10b): the socket's peer, unless it is a front named by `--trusted-proxy`; then
// the rightmost X-Forwarded-For address that is not a trusted front. Without trusted fronts the header is ignored.
import { describe, expect, it } from "vitest";
import {
  clientAddressOf,
  NO_TRUSTED_PROXIES,
  parseTrustedProxy,
  type TrustedProxies,
} from "../../../src/throttle/client-address.js";

const trusted = (...texts: string[]): TrustedProxies => texts.map((text) => parseTrustedProxy(text)!);
const FRONTS = trusted("127.0.0.1", "10.0.0.0/8", "fd00::/8");

describe("clientAddressOf", () => {
  it.each([
    ["no trusted front: the header is ignored", "127.0.0.1", "198.51.100.7", NO_TRUSTED_PROXIES, "127.0.0.1"],
    ["an untrusted peer's header is ignored (spoofing)", "192.0.2.9", "198.51.100.7", FRONTS, "192.0.2.9"],
    ["a trusted front: the address it appended", "127.0.0.1", "198.51.100.7", FRONTS, "198.51.100.7"],
    ["the IPv4-mapped form of a trusted front", "::ffff:127.0.0.1", "198.51.100.7", FRONTS, "198.51.100.7"],
    [
      "a client's own entries left of the front's are never read",
      "127.0.0.1",
      "203.0.113.1, 198.51.100.7",
      FRONTS,
      "198.51.100.7",
    ],
    [
      "trusted hops are skipped from the right",
      "127.0.0.1",
      "203.0.113.1, 198.51.100.7, 10.1.2.3",
      FRONTS,
      "198.51.100.7",
    ],
    ["all hops trusted: the leftmost", "127.0.0.1", "10.0.0.2, 10.0.0.3", FRONTS, "10.0.0.2"],
    [
      "a malformed hop ends the walk at the hop that appended it",
      "127.0.0.1",
      "198.51.100.7, not-an-ip",
      FRONTS,
      "127.0.0.1",
    ],
    ["a trusted front without the header is the source", "127.0.0.1", undefined, FRONTS, "127.0.0.1"],
    ["IPv6 clients and fronts", "fd00::1", "2001:db8::7", FRONTS, "2001:db8::7"],
    ["no socket, no address", undefined, "198.51.100.7", FRONTS, undefined],
  ])("%s", (_rule, peer, header, fronts, client) => {
    expect(clientAddressOf(peer, header, fronts)).toBe(client);
  });
});

describe("parseTrustedProxy", () => {
  it.each(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "::ffff:10.0.0.0/104"])("%s is accepted", (text) => {
    expect(parseTrustedProxy(text)).not.toBeNull();
  });
  it.each(["localhost", "10.1", "0x7f.0.0.1", "10.0.0.0/33", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/x", ""])(
    "%j is refused",
    (text) => {
      expect(parseTrustedProxy(text)).toBeNull();
    },
  );
});
