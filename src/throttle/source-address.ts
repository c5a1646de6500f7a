// The key failures are counted under: the socket's peer address, never a header (X-Forwarded-For is the
// client's to write). IPv4-mapped IPv6 is the IPv4 address; other IPv6 addresses count per /64, since one host
// is usually given a whole /64 and could otherwise rotate through it.
import { isIPv6 } from "node:net";

export function sourceKeyOf(remoteAddress: string | undefined): string | null {
  if (!remoteAddress) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  return `${expandIPv6(remoteAddress).slice(0, 4).join(":")}::/64`;
}

function expandIPv6(address: string): string[] {
  const bare = address.split("%")[0]!;
  const [head, tail] = bare.includes("::") ? bare.split("::") : [bare, undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const middle = tail === undefined ? [] : Array(Math.max(0, 8 - left.length - right.length)).fill("0");
  return [...left, ...middle, ...right].map((group) => group.toLowerCase().replace(/^0+(?=.)/, ""));
}
