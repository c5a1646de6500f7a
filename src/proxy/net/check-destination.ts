// The thin edge around the pure policy: decide what can be decided from the request, resolve the name once,
// decide every address. The answer names the addresses the dialer may use, all of them checked.

import {
  type AddressCheck,
  type CompiledPolicy,
  type DestinationFacts,
  decideAddresses,
  decideBeforeResolution,
  type Verdict,
} from "../policy/index.js";
import { PROXY_ERRORS } from "../wire.js";
import { DnsError, type NameResolver } from "./resolver.js";

export interface DestinationCheck {
  verdict: Verdict;
  /** What the name resolved to (empty for an address literal or a decision made before resolution). */
  resolved: string[];
  checks: AddressCheck[];
  /** The checked addresses to dial, in order; empty unless allowed. */
  dialable: string[];
}

export interface CheckDeps {
  policy: CompiledPolicy;
  resolver: NameResolver;
  ownAddresses: () => ReadonlySet<string>;
}

export async function checkDestination(facts: DestinationFacts, deps: CheckDeps): Promise<DestinationCheck> {
  const early = decideBeforeResolution(facts, deps.policy);
  if (early) return { verdict: early, resolved: [], checks: [], dialable: [] };
  const host = facts.target.host;
  let addresses: string[];
  let resolved: string[] = [];
  if (host.kind === "ip") {
    addresses = [host.address];
  } else {
    try {
      resolved = await deps.resolver.resolve(host.host);
      addresses = resolved;
    } catch (error) {
      const reason = error instanceof DnsError ? error.message : `${host.host} could not be resolved`;
      return {
        verdict: { allowed: false, error: PROXY_ERRORS.dnsFailed, rule: "dns", reason },
        resolved: [],
        checks: [],
        dialable: [],
      };
    }
  }
  const { verdict, checks } = decideAddresses(facts, addresses, deps.policy, deps.ownAddresses());
  return { verdict, resolved, checks, dialable: verdict.allowed ? checks.map((c) => c.address) : [] };
}
