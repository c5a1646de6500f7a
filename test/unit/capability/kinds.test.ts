import { describe, expect, it } from "vitest";
import {
  CAPABILITY_KINDS,
  normaliseCapabilityKind,
  tryNormaliseCapabilityKind,
} from "../../../src/capability/index.js";

describe("kinds are exactly the fixed vocabulary; legacy labels normalise into it", () => {
  it.each(CAPABILITY_KINDS.map((k) => [k]))("%s is accepted as is", (kind) => {
    expect(normaliseCapabilityKind(kind)).toBe(kind);
  });
  it.each([
    ["registry", "registry_access"],
    ["npm", "registry_access"],
    ["apikey", "api_key"],
    ["api-key", "api_key"],
    ["API Key", "api_key"],
    ["credentials", "service_credential"],
    ["database", "data_access"],
    ["Registry-Access", "registry_access"],
  ])("legacy %s -> %s", (label, kind) => {
    expect(normaliseCapabilityKind(label)).toBe(kind);
  });
  it("anything else is refused with the list of kinds", () => {
    expect(() => normaliseCapabilityKind("superpowers")).toThrow(
      /registry_access, service_credential, api_key, data_access, other/,
    );
    expect(tryNormaliseCapabilityKind("superpowers")).toBeNull();
  });
});
