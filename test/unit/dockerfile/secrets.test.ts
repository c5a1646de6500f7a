// Which values the step output sanitiser is given, and what a RUN step inherits from the sandbox.
import { describe, expect, it } from "vitest";
import { boundTail, TAIL_CHARACTERS, TAIL_LINES } from "../../../src/dockerfile/run-step.js";
import { createOutputSanitiser } from "../../../src/dockerfile/sanitise.js";
import { collectSecrets, stepBaseEnvironment } from "../../../src/dockerfile/secrets.js";

describe("collectSecrets", () => {
  it("takes manifest secrets, transport credentials, secret-named variables and secret-named build args", () => {
    const secrets = collectSecrets({
      env: {
        PAYMENT_X: "manifest-value-1",
        BATON_TURN_TOKEN: "turn-token-value",
        GITHUB_TOKEN: "ghp-like-value-123",
        DB_PASSWORD: "hunter2hunter2",
        HOME: "/home/agent",
      },
      secretNames: ["PAYMENT_X"],
      buildArgs: { NPM_TOKEN: "npm-secret-value", VERSION: "1.2.3" },
    });
    expect(secrets.map((s) => s.name).sort()).toEqual([
      "BATON_TURN_TOKEN",
      "DB_PASSWORD",
      "GITHUB_TOKEN",
      "NPM_TOKEN",
      "PAYMENT_X",
    ]);
  });

  it("a RUN step does not inherit the operations transport credentials", () => {
    const env = stepBaseEnvironment({
      BATON_TURN_TOKEN: "t",
      BATON_SANDBOX_LEASE: "l",
      PATH: "/bin",
      X: undefined,
    });
    expect(env).toEqual({ PATH: "/bin" });
  });

  it("the sanitiser redacts a collected secret by name and counts it", () => {
    const sanitiser = createOutputSanitiser([{ name: "DB_PASSWORD", value: "hunter2hunter2" }]);
    expect(sanitiser.sanitise("pw=hunter2hunter2\n")).toEqual({
      text: "pw=[REDACTED:DB_PASSWORD]\n",
      redactions: 1,
    });
  });
});

describe("boundTail", () => {
  it(`keeps at most ${TAIL_LINES} lines and ${TAIL_CHARACTERS} characters, the last ones`, () => {
    const many = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const tail = boundTail(many);
    expect(tail.split("\n").length).toBeLessThanOrEqual(TAIL_LINES + 1);
    expect(tail.endsWith("line 99")).toBe(true);
    expect(boundTail("x".repeat(10_000)).length).toBe(TAIL_CHARACTERS);
  });
});
