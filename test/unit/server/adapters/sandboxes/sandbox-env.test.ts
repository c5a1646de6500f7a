import { describe, expect, it } from "vitest";
import { mergeSandboxEnv } from "../../../../../src/server/adapters/sandboxes/sandbox-env.js";

describe("a repository's sandbox.env from the service's record and .batonrc.json", () => {
  it.each([
    [
      "names from both sources join",
      { configured: [{ name: "LOG_LEVEL", value: "debug" }], batonrc: { API_BASE_URL: "http://x" } },
      { API_BASE_URL: "http://x", LOG_LEVEL: "debug" },
    ],
    [
      "the service's repository record wins over .batonrc.json for the same name",
      { configured: [{ name: "LOG_LEVEL", value: "debug" }], batonrc: { LOG_LEVEL: "trace" } },
      { LOG_LEVEL: "debug" },
    ],
    [
      "a secret of the same name wins over both (its placeholder is what the proxy swaps)",
      {
        configured: [{ name: "A", value: "1" }],
        batonrc: { API_TOKEN: "from-file", B: "2" },
        secretNames: ["API_TOKEN"],
      },
      { A: "1", B: "2" },
    ],
    ["nothing configured gives nothing", { configured: [], batonrc: {} }, {}],
  ])("%s", (_rule, sources, expected) => {
    const merged = mergeSandboxEnv({ secretNames: [], ...sources });
    expect(Object.fromEntries(merged.map((e) => [e.name, e.value]))).toEqual(expected);
    expect(merged.map((e) => e.name)).toEqual(Object.keys(expected).sort());
  });
});
