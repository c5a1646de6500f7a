// BATON_WAKE_POLL_MS: the long-polls' fallback poll. Unset or blank gives the default; anything but a whole
// number of milliseconds within the range is a configuration error naming the variable and the range.
import { describe, expect, it } from "vitest";
import { BatonError } from "../../../src/errors.js";
import { DEFAULT_WAKE_POLL_MS } from "../../../src/server/store/wake-channels.js";
import { WAKE_POLL_ENV, wakePollFrom } from "../../../src/server/wake-settings.js";

describe("the long-polls' fallback poll from the environment", () => {
  it.each([
    { value: undefined, ms: DEFAULT_WAKE_POLL_MS, rule: "unset gives the default (2000)" },
    { value: "  ", ms: DEFAULT_WAKE_POLL_MS, rule: "blank gives the default" },
    { value: "50", ms: 50, rule: "the lowest accepted is 50" },
    { value: "60000", ms: 60_000, rule: "the highest accepted is 60000" },
    { value: " 1500 ", ms: 1_500, rule: "surrounding spaces are ignored" },
  ])("$rule", ({ value, ms }) => {
    expect(wakePollFrom(value === undefined ? {} : { [WAKE_POLL_ENV]: value })).toBe(ms);
  });

  it.each([
    { value: "49", rule: "below 50 is refused" },
    { value: "60001", rule: "above 60000 is refused" },
    { value: "1.5", rule: "a fraction is refused" },
    { value: "-100", rule: "a negative number is refused" },
    { value: "2s", rule: "a unit is refused (milliseconds only)" },
  ])("$rule", ({ value }) => {
    let thrown: unknown;
    try {
      wakePollFrom({ [WAKE_POLL_ENV]: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BatonError);
    expect((thrown as BatonError).code).toBe("not_configured");
    expect((thrown as Error).message).toContain(
      "BATON_WAKE_POLL_MS must be a whole number of milliseconds from 50 to 60000",
    );
  });
});
