// Ids come 16 bytes at a time from a pool the CSPRNG refills every 256 ids: across refills they stay distinct
// and keep their shape.
import { describe, expect, it } from "vitest";
import { hashCredential, newId } from "../../../src/server/primitives/tokens.js";

describe("newId", () => {
  it("gives <prefix>_<32 hex>, all distinct across several refills of the pool", () => {
    const ids = Array.from({ length: 1000 }, () => newId("op"));
    for (const id of ids) expect(id).toMatch(/^op_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("hashCredential", () => {
  it("is the hex sha256 of the UTF-8 credential", () => {
    expect(hashCredential("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashCredential("é")).toBe("4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c");
  });
});
