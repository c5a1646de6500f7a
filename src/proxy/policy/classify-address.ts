// Classifies one IP address against the special-purpose tables. IPv4-mapped and IPv4-compatible IPv6 addresses
// are unmapped and judged as the IPv4 address they carry. Pure.
import ipaddr from "ipaddr.js";
import {
  GLOBAL_UNICAST_V6,
  LOCKED_NAMES,
  SPECIAL_RANGES_V4,
  SPECIAL_RANGES_V6,
  type SpecialRange,
} from "./special-ranges.js";
import { carriedIpv4 } from "./translation.js";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];
interface CompiledRange extends SpecialRange {
  parsed: Cidr;
}

const compile = (ranges: readonly SpecialRange[]): CompiledRange[] =>
  ranges.map((r) => ({ ...r, parsed: ipaddr.parseCIDR(r.cidr) }));
const V4 = compile(SPECIAL_RANGES_V4);
const V6 = compile(SPECIAL_RANGES_V6);
const GLOBAL_V6 = ipaddr.parseCIDR(GLOBAL_UNICAST_V6) as [ipaddr.IPv6, number];

export interface AddressClass {
  /** Canonical form of the address as given (IPv6 compressed, lowercase). */
  address: string;
  family: 4 | 6;
  /** The IPv4 address an IPv4-mapped or -compatible IPv6 address carries; it is what was judged. */
  embeddedIpv4: string | null;
  /** `global`, or the most specific special-purpose range's name (`loopback`, `private`, ...). */
  range: string;
  /** Whether the address is in a range no operator rule opens (loopback, link-local, metadata, this network). */
  locked: boolean;
  /** A locked IPv4 address a NAT64, 6to4 or Teredo address leads to (`169.254.169.254 link_local_metadata`). */
  carries: string | null;
}

/** Parses a canonical or literal address; null when it is not one. */
export function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    const parsed = ipaddr.parse(text);
    return parsed;
  } catch {
    return null;
  }
}

/** The IPv4 address inside ::ffff:a.b.c.d (mapped) or ::a.b.c.d (compatible, but not :: or ::1). */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  if (parts.slice(0, 5).some((p) => p !== 0)) return null;
  const mapped = parts[5] === 0xffff;
  const compatible = parts[5] === 0 && (parts[6] !== 0 || parts[7]! > 1);
  if (!mapped && !compatible) return null;
  const bytes = address.toByteArray().slice(12);
  return new ipaddr.IPv4(bytes);
}

function mostSpecific(address: ipaddr.IPv4 | ipaddr.IPv6, table: readonly CompiledRange[]) {
  let best: CompiledRange | null = null;
  let locked = false;
  for (const entry of table) {
    if (entry.parsed[0].kind() !== address.kind()) continue;
    if (!address.match(entry.parsed as never)) continue;
    locked ||= entry.locked;
    if (best === null || entry.parsed[1] > best.parsed[1]) best = entry;
  }
  return { best, locked };
}

export function classifyAddress(text: string): AddressClass | null {
  const parsed = parseAddress(text);
  if (parsed === null) return null;
  if (parsed.kind() === "ipv4") return classifyV4(parsed as ipaddr.IPv4, parsed.toString(), null);
  const v6 = parsed as ipaddr.IPv6;
  const canonical = new ipaddr.IPv6(v6.parts).toString();
  const inner = embeddedIpv4(v6);
  if (inner !== null) {
    const judged = classifyV4(inner, canonical, inner.toString());
    return { ...judged, family: 6 };
  }
  const { best, locked } = mostSpecific(v6, V6);
  const base = { address: canonical, family: 6 as const, embeddedIpv4: null, carries: null };
  if (best !== null) {
    // 0.0.0.0/8 is no translator's destination, and the layouts that do not apply read zeros as it.
    const carried = carriedIpv4(v6, best.name)
      .map((v4) => classifyV4(v4, v4.toString(), null))
      .find((c) => c.locked && c.range !== "this_network");
    return {
      ...base,
      range: best.name,
      locked: locked || carried !== undefined,
      carries: carried ? `${carried.address} ${carried.range}` : null,
    };
  }
  if (!v6.match(GLOBAL_V6)) return { ...base, range: "not_global_unicast", locked: false };
  return { ...base, range: "global", locked: false };
}

function classifyV4(address: ipaddr.IPv4, canonical: string, embedded: string | null): AddressClass {
  const { best, locked } = mostSpecific(address, V4);
  return {
    address: canonical,
    family: 4,
    embeddedIpv4: embedded,
    range: best?.name ?? "global",
    locked,
    carries: null,
  };
}

/** `localhost`, anything under `.localhost`, and the cloud metadata names: denied before any resolution. */
export function lockedNameOf(host: string): string | null {
  const name = host.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "localhost";
  return LOCKED_NAMES.includes(name) ? "metadata_name" : null;
}
