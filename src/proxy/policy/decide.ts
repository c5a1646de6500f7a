// The destination decision, in two pure steps: before resolution (the target's name, port and method) and after
// it (every resolved address). Only globally reachable addresses pass by default; operator allow rules may open
// other special-purpose ranges, never a locked one (loopback, link-local and metadata, this network, the proxy's
// own addresses) or a locked name. Classify first, act second: these functions never throw.
import { PROXY_ERRORS, type ProxyError, SMTP_PORTS } from "../wire.js";
import { type AddressClass, classifyAddress, lockedNameOf } from "./classify-address.js";
import type { Target } from "./parse-target.js";
import { type CompiledPolicy, firstMatch, type RuleFacts } from "./rules.js";

export type Verdict =
  | { allowed: true; rule: string; reason: string }
  | { allowed: false; error: ProxyError; rule: string; reason: string; address?: string };

export interface DestinationFacts {
  target: Target;
  /** null for a CONNECT tunnel (its inner methods are unseen). */
  method: string | null;
}

const deny = (error: ProxyError, rule: string, reason: string, address?: string): Verdict => ({
  allowed: false,
  error,
  rule,
  reason,
  ...(address === undefined ? {} : { address }),
});

function factsOf(facts: DestinationFacts, address: string | null): RuleFacts {
  return { host: facts.target.host.host, port: facts.target.port, method: facts.method, address };
}

/**
 * What can be decided from the request alone: a locked name, or an operator deny rule that needs no address.
 * Returns null when the decision needs the resolved addresses.
 */
export function decideBeforeResolution(facts: DestinationFacts, policy: CompiledPolicy): Verdict | null {
  const { host } = facts.target;
  if (host.kind === "name") {
    const locked = lockedNameOf(host.host);
    if (locked) {
      return deny(
        PROXY_ERRORS.destinationDenied,
        "locked_name",
        `${host.host} is ${locked}; never reachable`,
      );
    }
  }
  const address = host.kind === "ip" ? host.address : null;
  const denied = firstMatch(policy.deny, factsOf(facts, address));
  if (denied && (address !== null || denied.cidr === null)) {
    return deny(PROXY_ERRORS.ruleDenied, denied.name, `the operator's rule ${denied.name} denies it`);
  }
  // After the operator's own deny rules, so a rule of theirs that names these ports is the one audited.
  if (!policy.allowSmtp && SMTP_PORTS.includes(facts.target.port)) {
    return deny(PROXY_ERRORS.smtpDenied, "smtp", `port ${facts.target.port} is an outbound mail port`);
  }
  return null;
}

export interface AddressCheck {
  address: string;
  class: AddressClass | null;
  verdict: Verdict;
}

/** One resolved (or literal) address. `ownAddresses` are the proxy's own, canonical form. */
export function decideAddress(
  facts: DestinationFacts,
  address: string,
  policy: CompiledPolicy,
  ownAddresses: ReadonlySet<string>,
): AddressCheck {
  const cls = classifyAddress(address);
  if (cls === null) {
    return {
      address,
      class: null,
      verdict: deny(PROXY_ERRORS.destinationDenied, "invalid_address", "not an IP address", address),
    };
  }
  const judged = cls.embeddedIpv4 ?? cls.address;
  const check = (verdict: Verdict): AddressCheck => ({ address: cls.address, class: cls, verdict });
  if (cls.locked) {
    const what = cls.carries ? `${cls.range} address leading to ${cls.carries}` : `${cls.range} address`;
    return check(deny(PROXY_ERRORS.destinationDenied, `range:${cls.range}`, what, cls.address));
  }
  if (ownAddresses.has(cls.address) || ownAddresses.has(judged)) {
    return check(
      deny(
        PROXY_ERRORS.destinationDenied,
        "proxy_self",
        "an address of the proxy's own machine",
        cls.address,
      ),
    );
  }
  const ruleFacts = factsOf(facts, cls.address);
  const denied = firstMatch(policy.deny, ruleFacts);
  if (denied) {
    return check(
      deny(PROXY_ERRORS.ruleDenied, denied.name, `the operator's rule ${denied.name} denies it`, cls.address),
    );
  }
  if (cls.range === "global") return check({ allowed: true, rule: "global", reason: "globally reachable" });
  const allowed = firstMatch(policy.allow, ruleFacts);
  if (allowed) {
    return check({
      allowed: true,
      rule: allowed.name,
      reason: `${cls.range} address opened by ${allowed.name}`,
    });
  }
  return check(
    deny(PROXY_ERRORS.destinationDenied, `range:${cls.range}`, `${cls.range} address`, cls.address),
  );
}

/**
 * Every address must pass: one private or loopback answer among public ones denies the name, so no later
 * choice of address (by the dialer, a retry or a rebinding resolver) can reach it.
 */
export function decideAddresses(
  facts: DestinationFacts,
  addresses: readonly string[],
  policy: CompiledPolicy,
  ownAddresses: ReadonlySet<string>,
): { verdict: Verdict; checks: AddressCheck[] } {
  if (addresses.length === 0) {
    return {
      verdict: deny(PROXY_ERRORS.dnsFailed, "dns", "the name has no addresses"),
      checks: [],
    };
  }
  const checks = addresses.map((a) => decideAddress(facts, a, policy, ownAddresses));
  const denied = checks.find((c) => !c.verdict.allowed);
  return { verdict: (denied ?? checks[0]!).verdict, checks };
}
