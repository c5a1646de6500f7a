// Which instance may begin or take over a running turn: the rule beginTurn and the takeover sweep apply, as a
// table ("a turn claimed by an instance that dies is taken over after the lease expires").
import { describe, expect, it } from "vitest";
import { mayClaimTurn } from "../../../../../src/server/domain/tasks/turn-claims.js";

const NOW = 1_800_000_000_000;
const ME = "host/aaaaaaaaaaaa";
const OTHER = "host/bbbbbbbbbbbb";

describe("mayClaimTurn", () => {
  it.each([
    ["a turn nobody began may be begun by any instance", null, null, true],
    ["a turn this instance holds may be begun by it again", ME, NOW + 10_000, true],
    ["another instance's turn whose lease still holds is not taken", OTHER, NOW + 1, false],
    ["a lease that ends this very millisecond still holds", OTHER, NOW, false],
    ["another instance's turn whose lease ran out is taken over", OTHER, NOW - 1, true],
    ["a claim left without a lease is taken", OTHER, null, true],
  ] as const)("%s", (_rule, claimedBy, leaseUntilMs, expected) => {
    expect(mayClaimTurn({ claimed_by: claimedBy, lease_until_ms: leaseUntilMs }, ME, NOW)).toBe(expected);
  });
});
