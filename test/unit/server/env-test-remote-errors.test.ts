// `baton env test --serve` passes the service's refusals on with what to fix (src/server/env-test-remote-errors.ts).
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../src/errors.js";
import { explainRefusal } from "../../../src/server/env-test-remote-errors.js";

const context = {
  serve: "http://127.0.0.1:8182",
  workspace: "ws_acme",
  repository: "acme/api",
  checkout: "/home/me/api",
};
const refusal = (status: number, reason: string) =>
  new ServiceError(
    status === 404 ? "not_found" : "service_error",
    `the service refused (${status}): ${reason}`,
    {
      status,
      details: { error: "x", reason },
    },
  );

describe("explainRefusal", () => {
  it.each([
    [
      "a service without a driver",
      refusal(
        400,
        "sandboxId, checkout, batonrc and image need a sandbox driver: start baton serve with --sandbox-driver docker|namespace",
      ),
      "runs no sandbox driver, so it has no box to lend; start it with --sandbox-driver docker|namespace",
    ],
    [
      "a checkout outside the root",
      refusal(
        400,
        "checkout /home/me/api is not under the checkout root /srv/checkouts (links are followed before checking)",
      ),
      "refused the checkout /home/me/api: checkout /home/me/api is not under the checkout root /srv/checkouts (links are followed before checking). It copies the checkout from its own disk: give a folder under its --checkout-root",
    ],
    [
      "an unknown workspace",
      refusal(404, "no such workspace; seed it first"),
      "workspace ws_acme is unknown to the service at http://127.0.0.1:8182; give --workspace one it has",
    ],
  ])("names the fix for %s, keeping the status and the cause", (_what, error, message) => {
    const explained = explainRefusal(error, context) as ServiceError;
    expect(explained.message).toContain(message);
    expect(explained.status).toBe(error.status);
    expect(explained.code).toBe(error.code);
    expect(explained.cause).toBe(error);
  });

  it("leaves other errors as they are", () => {
    const other = refusal(409, "that engagement id belongs to another workspace; pick another id");
    expect(explainRefusal(other, context)).toBe(other);
    const plain = new Error("boom");
    expect(explainRefusal(plain, context)).toBe(plain);
  });
});
