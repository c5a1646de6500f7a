// The seed ledger's three-way rules (src/server/domain/seed/plan.ts): what the seed says now, what it set last time,
// what the store holds.
import { describe, expect, it } from "vitest";
import { fingerprintSecret, matchesFingerprint } from "../../../src/server/domain/seed/fingerprint.js";
import { fieldsToWrite, itemsGone, unchangedSinceSeeded } from "../../../src/server/domain/seed/plan.js";

describe("fieldsToWrite", () => {
  it.each([
    ["an item the seed never set is written whole", { a: 1, b: "x" }, undefined, true, ["a", "b"]],
    ["a row that is gone is written whole", { a: 1, b: "x" }, { a: 1, b: "x" }, false, ["a", "b"]],
    [
      "an unchanged seed writes nothing, whatever the store holds",
      { a: 1, b: "x" },
      { a: 1, b: "x" },
      true,
      [],
    ],
    ["only the field whose seed value changed is written", { a: 2, b: "x" }, { a: 1, b: "x" }, true, ["a"]],
    ["a field the seed newly sets is written", { a: 1, b: "x" }, { a: 1 }, true, ["b"]],
    ["null is a value like any other", { a: null }, { a: "x" }, true, ["a"]],
  ] as const)("%s", (_rule, desired, applied, exists, expected) => {
    expect(fieldsToWrite(desired, applied, exists)).toEqual(expected);
  });
});

describe("unchangedSinceSeeded", () => {
  it.each([
    ["the row holds what the seed set", { a: 1, b: "x" }, { a: 1, b: "x" }, true],
    ["one field changed since", { a: 1, b: "x" }, { a: 1, b: "y" }, false],
    ["a column the seed never set does not count", { a: 1 }, { a: 1, b: "y" }, true],
  ] as const)("%s", (_rule, applied, current, expected) => {
    expect(unchangedSinceSeeded(applied, current)).toBe(expected);
  });
});

describe("itemsGone", () => {
  it("lists the items the seed set before and no longer lists", () => {
    const applied = new Map([
      ["kept", { a: 1 }],
      ["dropped", { a: 2 }],
    ]);
    expect(itemsGone(applied, new Set(["kept", "new"]))).toEqual([["dropped", { a: 2 }]]);
  });
});

describe("secret fingerprints", () => {
  it("match their value only, are salted, and never contain the value", () => {
    const value = "canary-fingerprint-3c2b1a09-never-print";
    const one = fingerprintSecret(value);
    const two = fingerprintSecret(value);
    expect(one).not.toBe(two);
    expect(matchesFingerprint(value, one)).toBe(true);
    expect(matchesFingerprint(value, two)).toBe(true);
    expect(matchesFingerprint(`${value}x`, one)).toBe(false);
    expect(one).not.toContain(value);
    expect(one).not.toContain(Buffer.from(value).toString("base64"));
  });

  it.each([undefined, null, 3, "", "scrypt1$", "scrypt1$c2FsdA==$c2hvcnQ=", "other$a$b"])(
    "%j is not a fingerprint of anything",
    (fingerprint) => {
      expect(matchesFingerprint("x", fingerprint)).toBe(false);
    },
  );
});
