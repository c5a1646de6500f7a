import { describe, expect, it } from "vitest";
import { EXIT, exitCodeFor } from "../../../src/cli/exit-codes.js";
import { ERROR_CODES } from "../../../src/errors.js";

describe("exit codes (reference section 4)", () => {
  it("every error code maps to one of the reference's exit codes 1, 2, 3 or 6", () => {
    for (const code of ERROR_CODES) expect([1, 2, 3, 6]).toContain(exitCodeFor(code));
  });
  it("an operator command's refusal (it changed nothing) exits 2, like a failed task", () => {
    expect(EXIT.refused).toBe(2);
  });
  it.each([
    ["operation_failed", EXIT.environmentFailed],
    ["rollout_disabled", EXIT.environmentFailed],
    ["still_working", EXIT.stillWorking],
    ["usage", EXIT.error],
    ["network", EXIT.error],
    ["unauthorised", EXIT.error],
    ["refused", EXIT.refused],
    ["check_failed", EXIT.error],
  ] as const)("%s exits %i", (code, exit) => {
    expect(exitCodeFor(code)).toBe(exit);
  });
});
