// Which instance may take an engagement's oldest open operation: the rule each drain applies under the
// engagement's lock, as a table ("an operation claimed by an instance that dies is taken over after the lease
// expires"; MAX_ATTEMPTS interruptions fail it terminally, as a restart did).
import { describe, expect, it } from "vitest";
import { decideHead, MAX_ATTEMPTS } from "../../../../../src/server/domain/operations/claim-operation.js";

const NOW = 1_800_000_000_000;
const ME = "host/aaaaaaaaaaaa";
const OTHER = "host/bbbbbbbbbbbb";

describe("decideHead", () => {
  it.each([
    ["no open operation: the engagement is idle", undefined, "idle"],
    [
      "a pending operation nobody claimed is claimed",
      { state: "pending", attempts: 0, claimed_by: null, lease_until_ms: null },
      "claim",
    ],
    [
      "a running operation whose holder's lease still holds is left to it",
      { state: "running", attempts: 1, claimed_by: OTHER, lease_until_ms: NOW + 1 },
      "busy",
    ],
    [
      "a lease that ends this very millisecond still holds",
      { state: "running", attempts: 1, claimed_by: OTHER, lease_until_ms: NOW },
      "busy",
    ],
    [
      "a running operation whose holder's lease ran out is taken over",
      { state: "running", attempts: 1, claimed_by: OTHER, lease_until_ms: NOW - 1 },
      "claim",
    ],
    [
      "a running operation given back (no holder) is taken",
      { state: "running", attempts: 2, claimed_by: null, lease_until_ms: null },
      "claim",
    ],
    [
      "this instance's own claim is taken again (its drain lost track of it)",
      { state: "running", attempts: 1, claimed_by: ME, lease_until_ms: NOW + 5000 },
      "claim",
    ],
    [
      `a running operation interrupted ${MAX_ATTEMPTS} times fails instead of running again`,
      { state: "running", attempts: MAX_ATTEMPTS, claimed_by: OTHER, lease_until_ms: NOW - 1 },
      "interrupted",
    ],
    [
      `an operation interrupted ${MAX_ATTEMPTS} times whose holder still renews is still left to it`,
      { state: "running", attempts: MAX_ATTEMPTS, claimed_by: OTHER, lease_until_ms: NOW + 1 },
      "busy",
    ],
    [
      "a pending operation put back after earlier attempts runs again",
      { state: "pending", attempts: MAX_ATTEMPTS - 1, claimed_by: null, lease_until_ms: null },
      "claim",
    ],
  ] as const)("%s", (_rule, head, expected) => {
    expect(decideHead(head, ME, NOW)).toBe(expected);
  });
});
