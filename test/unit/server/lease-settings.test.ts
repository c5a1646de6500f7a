// The lease of `baton serve`: `--lease-seconds`, its default, and the tests' millisecond override; renewed three
// times a lease.
import { describe, expect, it } from "vitest";
import { DEFAULT_LEASE_MS, leaseSettingsOf, renewEveryMs } from "../../../src/server/domain/leases.js";

describe("leaseSettingsOf", () => {
  it.each([
    ["no flag: 30 s", undefined, {}, DEFAULT_LEASE_MS],
    ["--lease-seconds 90: 90 000 ms", 90, {}, 90_000],
    ["BATON_SERVE_TEST_LEASE_MS wins over the flag (tests)", 90, { BATON_SERVE_TEST_LEASE_MS: "1500" }, 1500],
    ["an empty BATON_SERVE_TEST_LEASE_MS is no override", 90, { BATON_SERVE_TEST_LEASE_MS: "" }, 90_000],
    [
      "a BATON_SERVE_TEST_LEASE_MS that is not a positive whole number is ignored",
      undefined,
      { BATON_SERVE_TEST_LEASE_MS: "-5" },
      DEFAULT_LEASE_MS,
    ],
  ] as const)("%s", (_rule, seconds, env, expected) => {
    expect(leaseSettingsOf(seconds, env).leaseMs).toBe(expected);
  });

  it("renews every third of the lease, so two missed renewals still keep it", () => {
    expect(DEFAULT_LEASE_MS).toBe(30_000);
    expect(renewEveryMs({ leaseMs: 30_000 })).toBe(10_000);
    expect(renewEveryMs({ leaseMs: 1500 })).toBe(500);
  });
});
