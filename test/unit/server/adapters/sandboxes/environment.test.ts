import { describe, expect, it } from "vitest";
import { OPERATOR_CREDENTIALS } from "../../../../../src/credentials/operator-credentials.js";
import { addressesFor } from "../../../../../src/server/adapters/sandboxes/drivers/namespace-network.js";
import { allowRule, baseRules } from "../../../../../src/server/adapters/sandboxes/egress/firewall.js";
import { buildBoxEnvironment } from "../../../../../src/server/adapters/sandboxes/environment.js";

describe("the box's variables", () => {
  const input = {
    reach: { proxy: "172.18.0.1:40001", ops: "172.18.0.1:40002" },
    turnToken: "btt_turn",
    lease: "btl_lease/+=",
    sandboxEnv: { API_BASE_URL: "http://localhost:3000", BATON_TURN_TOKEN: "from sandbox.env" },
    secrets: [{ id: `sec_${"a".repeat(32)}`, name: "NPM_TOKEN" }],
  };

  it("points the transport and the proxy at the addresses the box reaches, with the lease as proxy password", () => {
    const env = buildBoxEnvironment(input);
    expect(env.BATON_OPS_URL).toBe("http://172.18.0.1:40002");
    expect(env.BATON_PROXY_URL).toBe("http://172.18.0.1:40001");
    for (const name of ["HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"])
      expect(env[name]).toBe("http://baton:btl_lease%2F%2B%3D@172.18.0.1:40001");
    expect(env.NO_PROXY).toBe("localhost,127.0.0.1,::1,172.18.0.1");
  });

  it("carries sandbox.env and secret placeholders, and a sandbox.env entry never replaces a credential", () => {
    const env = buildBoxEnvironment(input);
    expect(env.API_BASE_URL).toBe("http://localhost:3000");
    expect(env.NPM_TOKEN).toBe(`baton-secret-sec_${"a".repeat(32)}`);
    expect(env.BATON_TURN_TOKEN).toBe("btt_turn");
  });

  it("never holds an operator credential, even when a seed's sandboxEnv names one", () => {
    const env = buildBoxEnvironment({
      ...input,
      sandboxEnv: {
        ...input.sandboxEnv,
        BATON_ADMIN_TOKEN: "operator-admin",
        BATON_PROXY_TOKEN: "operator-proxy",
        BATON_MATCHER_TOKEN: "operator-matcher",
      },
    });
    for (const name of OPERATOR_CREDENTIALS) expect(env).not.toHaveProperty(name);
    expect(JSON.stringify(env)).not.toMatch(/operator-(admin|proxy|matcher)/);
  });

  it("sets no proxy variables when the box has no proxy", () => {
    const env = buildBoxEnvironment({ ...input, reach: { ops: "10.0.0.1:1" } });
    expect(Object.keys(env).filter((name) => /proxy/i.test(name))).toEqual([]);
  });
});

describe("namespace addressing and firewall rules", () => {
  it.each([
    [0, { host: "100.72.0.1", box: "100.72.0.2" }],
    [1, { host: "100.72.0.5", box: "100.72.0.6" }],
    [64, { host: "100.72.1.1", box: "100.72.1.2" }],
    [16383, { host: "100.72.255.253", box: "100.72.255.254" }],
  ])("the /30 with index %i", (index, expected) => {
    expect(addressesFor(index)).toEqual(expected);
  });

  it("rejects (never drops) everything from sandbox interfaces that no ACCEPT rule lets through", () => {
    const added = baseRules().map((rule) => rule.add.join(" "));
    expect(added).toContain("-I INPUT 1 -i baton-sbx-+ -j BATON-SANDBOX-IN");
    expect(added).toContain("-I FORWARD 1 -i baton-sbx-+ -j REJECT --reject-with icmp-net-unreachable");
    expect(added[1]).toBe("-A BATON-SANDBOX-IN -p tcp -j REJECT --reject-with tcp-reset");
    expect(allowRule("baton-sbx-abcde", "100.72.0.1", 4000).join(" ")).toBe(
      "BATON-SANDBOX-IN -i baton-sbx-abcde -d 100.72.0.1 -p tcp --dport 4000 -j ACCEPT",
    );
  });
});
