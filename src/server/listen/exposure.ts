// Which of `baton serve`'s listeners are reachable from other machines over plain HTTP, for the one warning
// line each gets at start. Pure: decides from the addresses only.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface ListenerAddress {
  /** What the listener serves, as the warning names it. */
  serves: string;
  /** The flag that sets its address. */
  flag: string;
  host: string;
  url: string;
}

/** Loopback addresses and `localhost` stay on this machine; every other address or name may not. */
export function isLoopbackHost(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 0) return false;
  const address = ipaddr.parse(host);
  const plain =
    address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()
      ? (address as ipaddr.IPv6).toIPv4Address()
      : address;
  return plain.range() === "loopback";
}

/** One line per listener on a non-loopback address: what is exposed, and how to put TLS in front. */
export function plainHttpWarnings(listeners: readonly ListenerAddress[]): string[] {
  return listeners
    .filter((listener) => !isLoopbackHost(listener.host))
    .map(
      (listener) =>
        `warning: ${listener.flag} ${listener.host} serves ${listener.serves} over plain HTTP at ${listener.url} to other machines: tokens and secret values cross the network readable; put a TLS reverse proxy in front and listen on 127.0.0.1 behind it`,
    );
}
