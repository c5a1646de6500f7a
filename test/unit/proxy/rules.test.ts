// Operator rules (issue 11 point 2): allow and deny by CIDR, host glob, port and method; deny first; no rule
// opens loopback, link-local/metadata, this network or the proxy's own addresses.
import { describe, expect, it } from "vitest";
import {
  compilePolicy,
  decideAddresses,
  decideBeforeResolution,
  ProxyConfigSchema,
  parseAuthority,
} from "../../../src/proxy/policy/index.js";

const policy = compilePolicy(
  ProxyConfigSchema.parse({
    allow: [
      { name: "registry", hosts: ["registry.corp.test"], ports: [443] },
      { name: "build-farm", cidr: ["10.20.0.0/16"], methods: ["GET"] },
      { name: "everything-local", cidr: ["127.0.0.0/8", "169.254.0.0/16", "0.0.0.0/8", "::1", "fe80::/10"] },
    ],
    deny: [
      { name: "no-smtp", ports: [25, "465-587"] },
      { name: "no-bad", hosts: ["*.bad.test"] },
      { name: "no-range", cidr: ["93.184.216.0/24"] },
    ],
  }),
);
const OWN = new Set(["192.0.2.2"]);

function decide(authority: string, addresses: string[], method: string | null = null) {
  const parsed = parseAuthority(authority);
  if (!parsed.ok) throw new Error(parsed.reason);
  const facts = { target: parsed.value, method };
  return decideBeforeResolution(facts, policy) ?? decideAddresses(facts, addresses, policy, OWN).verdict;
}

describe("outbound mail ports (issue 21 point 16)", () => {
  const decideWith = (config: Record<string, unknown>, authority: string) => {
    const parsed = parseAuthority(authority);
    if (!parsed.ok) throw new Error(parsed.reason);
    const compiled = compilePolicy(ProxyConfigSchema.parse(config));
    const facts = { target: parsed.value, method: null };
    return (
      decideBeforeResolution(facts, compiled) ?? decideAddresses(facts, ["93.184.1.1"], compiled, OWN).verdict
    );
  };
  it.each([25, 465, 587])("port %i is refused by default with smtp_denied", (port) => {
    expect(decideWith({}, `mail.example.test:${port}`)).toMatchObject({
      allowed: false,
      rule: "smtp",
      error: { code: "smtp_denied", status: 403 },
    });
  });
  it.each([25, 465, 587])('port %i is open with "allowSmtp": true', (port) => {
    expect(decideWith({ allowSmtp: true }, `mail.example.test:${port}`)).toMatchObject({
      allowed: true,
      rule: "global",
    });
  });
  it("other ports near them stay open", () => {
    for (const port of [24, 26, 443, 588, 2525]) {
      expect(decideWith({}, `mail.example.test:${port}`)).toMatchObject({ allowed: true });
    }
  });
});

describe("operator rules", () => {
  it.each([
    ["registry.corp.test:443", ["10.9.9.9"], null, true, "registry"],
    ["registry.corp.test:8443", ["10.9.9.9"], null, false, "range:private"],
    ["farm.corp.test:80", ["10.20.1.1"], "GET", true, "build-farm"],
    ["farm.corp.test:80", ["10.20.1.1"], "POST", false, "range:private"],
    ["farm.corp.test:443", ["10.20.1.1"], null, false, "range:private"],
    ["mail.example.test:25", ["93.184.1.1"], null, false, "no-smtp"],
    ["mail.example.test:500", ["93.184.1.1"], null, false, "no-smtp"],
    ["x.bad.test:443", ["93.184.1.1"], null, false, "no-bad"],
    ["site.test:443", ["93.184.216.34"], null, false, "no-range"],
    ["site.test:443", ["93.184.217.34"], null, true, "global"],
  ] as const)("%s at %o (%s) -> allowed %s by %s", (authority, addresses, method, allowed, rule) => {
    const verdict = decide(authority, [...addresses], method);
    expect(verdict).toMatchObject({ allowed, rule });
  });

  it.each([
    ["127.0.0.1", "range:loopback"],
    ["169.254.169.254", "range:link_local_metadata"],
    ["0.0.0.0", "range:this_network"],
    ["::1", "range:loopback"],
    ["fe80::1", "range:link_local"],
    ["::ffff:127.0.0.1", "range:loopback"],
    ["192.0.2.2", "proxy_self"],
  ])("an allow rule naming %s does not open it (%s)", (address, rule) => {
    expect(decide("anything.test:443", [address])).toMatchObject({ allowed: false, rule });
  });

  it("a config with a rule that sets nothing, or a bad CIDR or port range, is refused naming the field", () => {
    expect(ProxyConfigSchema.safeParse({ allow: [{ name: "empty" }] }).success).toBe(false);
    expect(ProxyConfigSchema.safeParse({ deny: [{ cidr: ["10.0.0.0/33"] }] }).error?.issues[0]?.path).toEqual(
      ["deny", 0, "cidr", 0],
    );
    expect(ProxyConfigSchema.safeParse({ deny: [{ ports: ["90-80"] }] }).success).toBe(false);
    expect(ProxyConfigSchema.safeParse({ unknown: true }).success).toBe(false);
  });
});
