import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.js";
import { mapHttpFailure, parseRetryAfter, requireOpsSettings } from "../../../src/transport/index.js";

const full = {
  BATON_OPS_URL: "http://127.0.0.1:4100/",
  BATON_TURN_TOKEN: "tok",
  BATON_SANDBOX_LEASE: "lease",
};

describe("transport settings", () => {
  it.each(["BATON_OPS_URL", "BATON_TURN_TOKEN", "BATON_SANDBOX_LEASE"])(
    "a missing %s is a ConfigError naming it",
    (name) => {
      const env = { ...full, [name]: "" };
      expect(() => requireOpsSettings(env)).toThrow(ConfigError);
      expect(() => requireOpsSettings(env)).toThrow(name);
    },
  );

  it("trims the trailing slash of the base URL", () => {
    expect(requireOpsSettings(full).baseUrl).toBe("http://127.0.0.1:4100");
  });

  it.each(["not a url", "ftp://example.com", "http://user:pass-canary@127.0.0.1/"])(
    "refuses BATON_OPS_URL %s without echoing it",
    (value) => {
      const run = () => requireOpsSettings({ ...full, BATON_OPS_URL: value });
      expect(run).toThrow(/BATON_OPS_URL/);
      try {
        run();
      } catch (error) {
        expect((error as Error).message).not.toContain(value);
      }
    },
  );
});

describe("Retry-After", () => {
  it.each([
    [undefined, undefined],
    ["3", 3000],
    [" 0 ", 0],
    ["soon", undefined],
    [new Date(10_000 + 5_000).toUTCString(), 5000],
    [new Date(0).toUTCString(), 0],
  ])("%s -> %s ms", (header, expected) => {
    const got = parseRetryAfter(header, 10_000);
    if (expected === undefined) expect(got).toBeUndefined();
    // HTTP dates have whole seconds.
    else expect(Math.abs((got ?? -1) - expected)).toBeLessThan(1000);
  });
});

describe("mapping HTTP failures to exit-code classes", () => {
  it.each([
    [401, "unauthorised"],
    [403, "rollout_disabled"],
    [404, "not_found"],
    [409, "conflict"],
    [400, "invalid_input"],
    [429, "service_error"],
    [502, "service_error"],
  ])("%i -> %s", (status, code) => {
    expect(mapHttpFailure({ status, body: { error: "x" }, doing: "testing" }).code).toBe(code);
  });

  it("copes with a body that is not the error shape", () => {
    const error = mapHttpFailure({ status: 500, body: "<html>", doing: "testing" });
    expect(error.message).toContain("500");
  });
});
