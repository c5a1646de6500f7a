import { describe, expect, it } from "vitest";
import { NOTICES } from "../../../../../src/server/domain/tasks/notices.js";

describe("the turn-failed notice", () => {
  it("ends the reason with one full stop, whether or not the reason had its own", () => {
    expect(NOTICES.agentFailed("the agent program exited with status 6: set it up by hand.")).toBe(
      "The turn failed: the agent program exited with status 6: set it up by hand. Send a follow-up to try again.",
    );
    expect(NOTICES.agentFailed("the agent timed out")).toBe(
      "The turn failed: the agent timed out. Send a follow-up to try again.",
    );
    expect(NOTICES.agentFailed("stderr ended with a newline.\n")).toBe(
      "The turn failed: stderr ended with a newline. Send a follow-up to try again.",
    );
  });
});
