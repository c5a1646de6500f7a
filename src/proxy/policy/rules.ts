// Operator rules, compiled once: host globs, CIDR blocks, port ranges and methods. A rule matches when every
// field it sets matches. Pure.
import ipaddr from "ipaddr.js";
import type { ProxyConfig, Rule } from "./config.js";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface CompiledRule {
  name: string;
  cidr: Cidr[] | null;
  hosts: string[] | null;
  ports: [number, number][] | null;
  methods: Set<string> | null;
}

export interface CompiledPolicy {
  allow: CompiledRule[];
  deny: CompiledRule[];
  /** Whether the mail ports (SMTP_PORTS) are open; closed unless the operator says so. */
  allowSmtp: boolean;
}

function toCidr(text: string): Cidr {
  if (text.includes("/")) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === "ipv4" ? 32 : 128];
}

function compileRule(rule: Rule, fallbackName: string): CompiledRule {
  return {
    name: rule.name ?? fallbackName,
    cidr: rule.cidr?.map(toCidr) ?? null,
    hosts: rule.hosts?.map((h) => h.toLowerCase().replace(/\.$/, "")) ?? null,
    ports:
      rule.ports?.map((p) => {
        if (typeof p === "number") return [p, p] as [number, number];
        const [low, high] = p.split("-").map(Number) as [number, number];
        return [low, high] as [number, number];
      }) ?? null,
    methods: rule.methods ? new Set(rule.methods) : null,
  };
}

export function compilePolicy(
  config: Pick<ProxyConfig, "allow" | "deny"> & Partial<Pick<ProxyConfig, "allowSmtp">>,
): CompiledPolicy {
  return {
    allow: config.allow.map((r, i) => compileRule(r, `allow[${i}]`)),
    deny: config.deny.map((r, i) => compileRule(r, `deny[${i}]`)),
    allowSmtp: config.allowSmtp ?? false,
  };
}

/** `*` matches any host; `*.example.com` any subdomain (not example.com itself); otherwise an exact match. */
export function hostGlobMatches(glob: string, host: string): boolean {
  if (glob === "*") return true;
  if (glob.startsWith("*.")) return host.endsWith(glob.slice(1)) && host.length > glob.length - 1;
  return glob === host;
}

function cidrContains(cidr: Cidr, address: string): boolean {
  const parsed = ipaddr.parse(address);
  const [block, bits] = cidr;
  if (parsed.kind() !== block.kind()) {
    // An IPv4 rule also covers the IPv4-mapped form of its addresses, and the other way round.
    if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
      return cidrContains(cidr, (parsed as ipaddr.IPv6).toIPv4Address().toString());
    }
    return false;
  }
  return parsed.match(block as never, bits);
}

export interface RuleFacts {
  host: string;
  port: number;
  /** null for an opaque tunnel, whose methods the proxy cannot see: a rule with `methods` never matches it. */
  method: string | null;
  /** null before resolution: a rule with `cidr` then matches only an address literal (given as host). */
  address: string | null;
}

export function ruleMatches(rule: CompiledRule, facts: RuleFacts): boolean {
  if (rule.hosts && !rule.hosts.some((glob) => hostGlobMatches(glob, facts.host))) return false;
  if (rule.ports && !rule.ports.some(([low, high]) => facts.port >= low && facts.port <= high)) return false;
  if (rule.methods && (facts.method === null || !rule.methods.has(facts.method))) return false;
  if (rule.cidr) {
    if (facts.address === null) return false;
    const address = facts.address;
    if (!rule.cidr.some((c) => cidrContains(c, address))) return false;
  }
  return true;
}

export function firstMatch(rules: readonly CompiledRule[], facts: RuleFacts): CompiledRule | null {
  return rules.find((rule) => ruleMatches(rule, facts)) ?? null;
}
