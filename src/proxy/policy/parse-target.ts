// Parses the authority a request is routed on (a CONNECT target or an absolute-form URL's host and port) into one
// normalised form. Every literal spelling of an address becomes its canonical address here, so the classifier
// and the dialer see the same thing. Pure; never throws.
import { domainToASCII } from "node:url";
import ipaddr from "ipaddr.js";

export type TargetHost =
  | { kind: "ip"; family: 4 | 6; address: string; host: string }
  | { kind: "name"; host: string };

export interface Target {
  host: TargetHost;
  port: number;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const fail = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });

/** A last label that resolvers would read as a number (`1`, `0x7f`, `017`): the host must then be an address. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/i;
const NAME_LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** Parses one host (no port). Brackets, zone ids, trailing dots, case and every IPv4 number form are accepted. */
export function parseTargetHost(raw: string): ParseResult<TargetHost> {
  let host = raw;
  if (host.length === 0 || host.length > 255) return fail("the host is empty or too long");
  const bracketed = host.startsWith("[") && host.endsWith("]");
  if (bracketed) host = host.slice(1, -1);
  // A zone id (`fe80::1%eth0`, or `%25eth0` as URLs spell it) names an interface, not a destination.
  const zone = host.indexOf("%");
  if (zone !== -1) {
    if (!host.includes(":")) return fail("a '%' is only allowed as an IPv6 zone id");
    host = host.slice(0, zone);
  }
  if (host.endsWith(".")) host = host.slice(0, -1);
  host = host.toLowerCase();
  if (host.includes(":")) {
    if (!ipaddr.IPv6.isValid(host)) return fail("not a valid IPv6 address");
    return { ok: true, value: ip(6, ipaddr.IPv6.parse(host).toNormalizedString()) };
  }
  if (bracketed) return fail("brackets hold IPv6 addresses only");
  if (isIpv4(host)) return { ok: true, value: ip(4, ipaddr.IPv4.parse(host).toString()) };
  const ascii = /^[\x21-\x7e]+$/.test(host) ? host : domainToASCII(host);
  if (ascii === "" || ascii.length > 253) return fail("not a valid hostname");
  // Full-width digits and dots (`１２７．０．０．１`) fold to an address: judge it as one.
  if (isIpv4(ascii)) return { ok: true, value: ip(4, ipaddr.IPv4.parse(ascii).toString()) };
  const labels = ascii.split(".");
  if (NUMERIC_LABEL.test(labels.at(-1)!)) return fail("a host ending in a number must be a valid IP address");
  if (!labels.every((label) => NAME_LABEL.test(label))) return fail("not a valid hostname");
  return { ok: true, value: { kind: "name", host: ascii } };
}

/**
 * Whether `text` is an IPv4 address in any spelling. The shape is checked first: ipaddr's isValid alone throws and
 * catches an exception for every host name, which cost tens of microseconds per request.
 */
function isIpv4(text: string): boolean {
  try {
    return ipaddr.IPv4.isIPv4(text) && ipaddr.IPv4.isValid(text);
  } catch {
    return false; // a number form ipaddr refuses outright (`08`, out of range)
  }
}

function ip(family: 4 | 6, address: string): TargetHost {
  const canonical = family === 6 ? ipaddr.IPv6.parse(address).toString() : address;
  return { kind: "ip", family, address: canonical, host: canonical };
}

function parsePort(raw: string): number | null {
  if (!/^[0-9]{1,5}$/.test(raw)) return null;
  const port = Number(raw);
  return port >= 1 && port <= 65535 ? port : null;
}

/** `host:port` as a CONNECT request carries it (`[v6]:port` for IPv6); the port is required. */
export function parseAuthority(raw: string, defaultPort?: number): ParseResult<Target> {
  if (raw.includes("@")) return fail("the authority may not carry a user or password");
  let hostPart: string;
  let portPart: string | undefined;
  if (raw.startsWith("[")) {
    const close = raw.indexOf("]");
    if (close === -1) return fail("an unclosed '[' in the authority");
    hostPart = raw.slice(0, close + 1);
    const rest = raw.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return fail("text after ']' that is not a port");
    portPart = rest === "" ? undefined : rest.slice(1);
  } else {
    const colon = raw.lastIndexOf(":");
    if (colon !== -1 && raw.indexOf(":") !== colon) return fail("an IPv6 address must be in brackets");
    hostPart = colon === -1 ? raw : raw.slice(0, colon);
    portPart = colon === -1 ? undefined : raw.slice(colon + 1);
  }
  const port = portPart === undefined ? (defaultPort ?? null) : parsePort(portPart);
  if (port === null)
    return fail(portPart === undefined ? "the port is missing" : "the port is not 1 to 65535");
  const host = parseTargetHost(hostPart);
  return host.ok ? { ok: true, value: { host: host.value, port } } : host;
}

export interface AbsoluteTarget extends Target {
  scheme: "http";
  /** The path and query, as sent on to the upstream (origin-form). */
  path: string;
}

/** An absolute-form request target (`http://host[:port]/path?query`). Only `http` is proxied this way. */
export function parseAbsoluteTarget(raw: string): ParseResult<AbsoluteTarget> {
  const match = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^#]*)$/i.exec(raw);
  if (!match) return fail("the request target is not an absolute URL (http://host/path)");
  if (match[1]!.toLowerCase() !== "http")
    return fail("only http:// is proxied with absolute-form; use CONNECT for https");
  const authority = parseAuthority(match[2]!, 80);
  if (!authority.ok) return authority;
  const rest = match[3]!;
  const path = rest === "" ? "/" : rest.startsWith("?") ? `/${rest}` : rest;
  if (/[\s\\]/.test(path)) return fail("the path holds a space or backslash");
  return { ok: true, value: { scheme: "http", ...authority.value, path } };
}

/** `host:port` with brackets for IPv6, for audit lines and messages. */
export function formatTarget(target: Target): string {
  const { host } = target.host;
  return `${host.includes(":") ? `[${host}]` : host}:${target.port}`;
}
