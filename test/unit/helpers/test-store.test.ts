// The test suite's engine switch (test/helpers/test-store.ts): BATON_TEST_STORE picks the engine every service
// suite runs on; an unknown value stops the run with a message naming the variable and the values it takes.
import { describe, expect, it } from "vitest";
import { testEngine } from "../../helpers/test-store.js";

describe("BATON_TEST_STORE", () => {
  it.each([
    [undefined, "sqlite"],
    ["", "sqlite"],
    ["sqlite", "sqlite"],
    ["postgres", "postgres"],
  ] as const)("%j runs the suites on %s", (value, engine) => {
    expect(testEngine(value === undefined ? {} : { BATON_TEST_STORE: value })).toBe(engine);
  });

  it.each(["pg", "Postgres", "mysql"])("%j is refused, naming the variable and what it takes", (value) => {
    expect(() => testEngine({ BATON_TEST_STORE: value })).toThrow(
      `BATON_TEST_STORE must be sqlite or postgres, not "${value}"`,
    );
  });
});
