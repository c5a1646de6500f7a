// Issue 37 A1: what counts as an access token on a command line, and that masking leaves none of it behind.
import { describe, expect, it } from "vitest";
import { holdsToken, maskTokens } from "../../../src/cli/token-arguments.js";

const CANARY = "btn_CANARYcanary0123456789abcdef";

describe("holdsToken: an argument that looks like an access token", () => {
  it.each([
    [[CANARY], true],
    [[`fix ${CANARY} now`], true],
    [["Bearer", CANARY], true],
    [["bearer", "eyJhbGciOiJIUzI1NiJ9"], true],
    [[`Authorization: Bearer ${CANARY}`], true],
    [["Bearer=abcdefghijklmnop"], true],
    // words that merely resemble one
    [["rename btn_ok to btn_done"], false],
    [["the bearer of bad news"], false],
    [["Bearer"], false],
    [["fix the flaky test"], false],
  ])("%j → %s", (args, expected) => {
    expect(holdsToken(args)).toBe(expected);
  });
});

describe("maskTokens: no part of a token survives in a message", () => {
  it.each([
    `unknown command '${CANARY}'`,
    `unknown option '--token=${CANARY}'`,
    `'login Bearer ${CANARY}' is not a baton command`,
    `Authorization: Bearer ${CANARY.slice(4)}`,
  ])("%s", (text) => {
    const masked = maskTokens(text);
    expect(masked).not.toContain(CANARY.slice(4));
    expect(masked).toContain("…");
  });
});
