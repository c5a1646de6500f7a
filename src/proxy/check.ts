// `baton proxy check`: the decision the policy makes for a URL or host:port, after resolving names, without
// connecting, so operators can test their rules. Returns a value; src/cli prints it.
import { InputError } from "../errors.js";
import { resolverFor } from "./load-config.js";
import { checkDestination } from "./net/check-destination.js";
import { createOwnAddresses } from "./net/own-addresses.js";
import {
  compilePolicy,
  type ProxyConfig,
  parseAbsoluteTarget,
  parseAuthority,
  type Target,
} from "./policy/index.js";

export interface CheckResult {
  decision: "allow" | "deny";
  host: string;
  port: number;
  method: string | null;
  resolved: string[];
  addresses: { address: string; range: string | null; allowed: boolean; rule: string; reason: string }[];
  rule: string;
  reason: string;
  /** The `Baton-Proxy-Error` code a request would get (null when allowed). */
  error: string | null;
  status: number | null;
}

export function parseCheckInput(input: string): Target {
  const text = input.trim();
  if (/^https:\/\//i.test(text)) {
    const authority = /^https:\/\/([^/?#]*)/i.exec(text)![1]!;
    const parsed = parseAuthority(authority, 443);
    if (!parsed.ok) throw new InputError(`${input}: ${parsed.reason}`, { path: "target" });
    return parsed.value;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    const parsed = parseAbsoluteTarget(text);
    if (!parsed.ok) throw new InputError(`${input}: ${parsed.reason}`, { path: "target" });
    return parsed.value;
  }
  const parsed = parseAuthority(text, 443);
  if (!parsed.ok)
    throw new InputError(`${input}: ${parsed.reason}; give a URL or host:port`, { path: "target" });
  return parsed.value;
}

export async function checkProxyPolicy(
  config: ProxyConfig,
  input: string,
  method: string | null,
): Promise<CheckResult> {
  const target = parseCheckInput(input);
  const check = await checkDestination(
    { target, method },
    { policy: compilePolicy(config), resolver: resolverFor(config), ownAddresses: createOwnAddresses() },
  );
  const { verdict } = check;
  return {
    decision: verdict.allowed ? "allow" : "deny",
    host: target.host.host,
    port: target.port,
    method,
    resolved: check.resolved,
    addresses: check.checks.map((c) => ({
      address: c.address,
      range: c.class?.range ?? null,
      allowed: c.verdict.allowed,
      rule: c.verdict.rule,
      reason: c.verdict.reason,
    })),
    rule: verdict.rule,
    reason: verdict.reason,
    error: verdict.allowed ? null : verdict.error.code,
    status: verdict.allowed ? null : verdict.error.status,
  };
}
