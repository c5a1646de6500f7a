// Issue 26: "sandboxes belong to the instance that runs their driver … a dead instance's boxes are adopted, or
// recorded lost, by the next one on that machine", as the pure decision over a box's owner columns.
import { describe, expect, it } from "vitest";
import {
  type BoxOwnerFacts,
  decideOwnership,
  type Ownership,
} from "../../../../../src/server/adapters/sandboxes/ownership.js";

const ME = { id: "m1/aaaaaaaaaaaa", machine: "m1" };
const NOW = 1_800_000_000_000;
const box = (ownerInstance: string | null, ownerMachine: string | null, ownerLeaseUntilMs: number | null) =>
  ({ ownerInstance, ownerMachine, ownerLeaseUntilMs }) satisfies BoxOwnerFacts;

const CASES: { rule: string; facts: BoxOwnerFacts; exclusive?: boolean; expected: Ownership }[] = [
  { rule: "a box this instance made is its own", facts: box(ME.id, "m1", NOW - 1), expected: "mine" },
  {
    rule: "a box recorded before owners were is adopted",
    facts: box(null, null, null),
    expected: "adoptable",
  },
  {
    rule: "a live instance's box on this machine is left alone",
    facts: box("m1/b", "m1", NOW),
    expected: "held_elsewhere",
  },
  {
    rule: "a dead instance's box on this machine is adopted",
    facts: box("m1/b", "m1", NOW - 1),
    expected: "adoptable",
  },
  {
    rule: "another machine's live box is left alone",
    facts: box("m2/b", "m2", NOW + 1),
    expected: "other_machine",
  },
  {
    rule: "another machine's dead box is left alone (only its machine reaches it)",
    facts: box("m2/b", "m2", 0),
    expected: "other_machine",
  },
  {
    rule: "on a one-instance store (SQLite) a previous run's box is adopted at once",
    facts: box("m1/b", "m1", NOW + 60_000),
    exclusive: true,
    expected: "adoptable",
  },
];

describe("which instance a sandbox box belongs to", () => {
  it.each(CASES)("$rule", ({ facts, exclusive, expected }) => {
    expect(decideOwnership(facts, ME, NOW, exclusive)).toBe(expected);
  });
});
