// API refusals become BatonErrors whose message carries the service's `reason` and whose code decides the exit.
import { describe, expect, it } from "vitest";
import { exitCodeFor } from "../../../src/cli/exit-codes.js";
import { mapApiFailure } from "../../../src/client/api-errors.js";

describe("API refusals", () => {
  it.each([
    [400, "invalid_status", "unknown status", "invalid_input"],
    [401, "invalid_token", "token revoked", "unauthorised"],
    [402, "billing_inactive", "billing is off", "conflict"],
    [404, "not_found", "no such task", "not_found"],
    [409, "not_running", "nothing running", "conflict"],
    [429, "too_many_running", "five already", "service_error"],
    [503, "unavailable", "try again", "service_error"],
  ])("%d %s: code %s... carries the reason, exit 1", (status, error, reason, code) => {
    const mapped = mapApiFailure({ status, body: { error, reason }, doing: "testing" });
    expect(mapped.code).toBe(code);
    expect(mapped.message).toContain(reason);
    expect(mapped.message).toContain(`${status} ${error}`);
    expect(mapped.details).toMatchObject({ status, wireError: error });
    expect(exitCodeFor(mapped.code)).toBe(1);
  });

  it("401 says to run baton login", () => {
    expect(mapApiFailure({ status: 401, body: { error: "invalid_token" }, doing: "x" }).message).toContain(
      "baton login",
    );
  });

  it("a 503 start refusal keeps the task and message ids for the retry", () => {
    const mapped = mapApiFailure({
      status: 503,
      body: { error: "unavailable", taskId: "tsk_1", messageId: "k1" },
      doing: "starting",
    });
    expect(mapped.details).toMatchObject({ taskId: "tsk_1", messageId: "k1" });
  });

  it("a body that is not the error shape still gives the status", () => {
    expect(mapApiFailure({ status: 502, body: undefined, doing: "testing" }).message).toContain("(502)");
  });
});
