// `baton proxy check`'s core: the decision after resolution, here with names pinned in the config (dns.hosts),
// so no resolver is asked; the pinned addresses are checked like any others.
import { describe, expect, it } from "vitest";
import { checkProxyPolicy } from "../../../src/proxy/check.js";
import { ProxyConfigSchema } from "../../../src/proxy/policy/index.js";

const config = ProxyConfigSchema.parse({
  allow: [{ name: "internal-registry", hosts: ["registry.corp.test"] }],
  dns: {
    hosts: {
      "registry.corp.test": ["10.1.1.1"],
      "sneaky.corp.test": ["127.0.0.1"],
      "app.corp.test": ["10.1.1.2"],
    },
  },
});

describe("checkProxyPolicy", () => {
  it.each([
    ["https://registry.corp.test/v2/", "allow", "internal-registry", 443],
    ["app.corp.test:8080", "deny", "range:private", 8080],
    ["http://sneaky.corp.test/", "deny", "range:loopback", 80],
  ])("%s -> %s (%s)", async (input, decision, rule, port) => {
    const result = await checkProxyPolicy(config, input, null);
    expect(result).toMatchObject({ decision, rule, port });
    expect(result.resolved.length).toBe(1);
  });

  it("a target that is not a URL or host:port is an error naming it", async () => {
    await expect(checkProxyPolicy(config, "http://exa mple.test/", null)).rejects.toThrow(/exa mple/);
  });
});
