// A task's live agent process takes the next turn only while it may: it speaks ACP, its variables but the turn
// token are the turn's, and the token it started with outlives the turn. A new process gets a clean environment.
import { describe, expect, it } from "vitest";
import {
  agentEnvironment,
  canReuse,
  environmentKey,
} from "../../../../../../src/server/adapters/agents/acp/live-process.js";

describe("agentEnvironment", () => {
  it("is the sandbox's variables over the service's PATH and HOME, never another service variable or an operator credential", () => {
    const env = agentEnvironment(
      { PATH: "/usr/bin", HOME: "/root", DATABASE_URL: "postgres://x", BATON_ADMIN_TOKEN: "admin" },
      { env: { HOME: "/sandbox/home", BATON_TURN_TOKEN: "btt_1", BATON_PROXY_TOKEN: "proxy" } },
    );
    expect(env).toEqual({ PATH: "/usr/bin", HOME: "/sandbox/home", BATON_TURN_TOKEN: "btt_1" });
  });

  it("leaves out PATH or HOME the service does not have", () => {
    expect(agentEnvironment({}, { env: { A: "1" } })).toEqual({ A: "1" });
  });

  it("in a box is the agent's own variables under the turn's, without the service's PATH and HOME", () => {
    const env = agentEnvironment(
      { PATH: "/usr/bin", HOME: "/root" },
      { env: { BATON_TURN_TOKEN: "btt_1", TELEMETRY: "on" }, box: {} },
      { TELEMETRY: "off", NODE_EXTRA_CA_CERTS: "/etc/ca.pem", BATON_ADMIN_TOKEN: "admin" },
    );
    expect(env).toEqual({ TELEMETRY: "on", NODE_EXTRA_CA_CERTS: "/etc/ca.pem", BATON_TURN_TOKEN: "btt_1" });
  });
});

describe("canReuse", () => {
  const key = environmentKey({ PATH: "/bin", BATON_TURN_TOKEN: "btt_1", BATON_SANDBOX_LEASE: "btl_1" });
  const live = { alive: true, startedAtMs: 1_000, environmentKey: key };
  const cases: [string, Partial<typeof live>, { environmentKey?: string; nowMs?: number }, boolean][] = [
    ["the same variables, young", {}, {}, true],
    [
      "only the turn token changed",
      {},
      {
        environmentKey: environmentKey({
          PATH: "/bin",
          BATON_TURN_TOKEN: "btt_2",
          BATON_SANDBOX_LEASE: "btl_1",
        }),
      },
      true,
    ],
    [
      "the lease changed",
      {},
      {
        environmentKey: environmentKey({
          PATH: "/bin",
          BATON_TURN_TOKEN: "btt_1",
          BATON_SANDBOX_LEASE: "btl_2",
        }),
      },
      false,
    ],
    [
      "a variable was added",
      {},
      {
        environmentKey: environmentKey({
          PATH: "/bin",
          BATON_TURN_TOKEN: "btt_1",
          BATON_SANDBOX_LEASE: "btl_1",
          X: "1",
        }),
      },
      false,
    ],
    ["the process is gone", { alive: false }, {}, false],
    ["the process is as old as the bound", {}, { nowMs: 1_000 + 60_000 }, false],
    ["just under the bound", {}, { nowMs: 1_000 + 59_999 }, true],
  ];
  for (const [what, facts, turn, expected] of cases)
    it(what, () =>
      expect(canReuse({ ...live, ...facts }, { environmentKey: key, nowMs: 2_000, ...turn }, 60_000)).toBe(
        expected,
      ),
    );

  it("the key does not depend on the variables' order", () => {
    expect(environmentKey({ A: "1", B: "2" })).toBe(environmentKey({ B: "2", A: "1" }));
  });
});
