// Our tracker receiver and Linear's own verifier (@linear/sdk 98.0.0's LinearWebhookClient.verify, pinned) agree
// on Linear's deliveries: a delivery signed as Linear documents it (hex HMAC-SHA256 of the raw body in
// `Linear-Signature`, the body's `webhookTimestamp` within a minute) is accepted by both, and a body or signature
// changed after signing, or a stale timestamp, is refused by both. Linear cannot reach the test machine, so the
// test signs as Linear does, with node:crypto rather than our own signBody.
import { createHmac } from "node:crypto";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhookHarness, freshTracker, SECRETS, type WebhookHarness } from "./harness.js";

let h: WebhookHarness;
beforeAll(async () => {
  h = await createWebhookHarness();
});
afterAll(async () => {
  await h?.close();
});

const linearSignature = (raw: string) => createHmac("sha256", SECRETS.tracker).update(raw).digest("hex");

/** The SDK's verdict: it answers false or throws for a delivery it refuses. */
function sdkAccepts(raw: string, signature: string): boolean {
  try {
    return new LinearWebhookClient(SECRETS.tracker).verify(Buffer.from(raw), signature);
  } catch {
    return false;
  }
}

describe("the tracker receiver agrees with @linear/sdk's verifier", () => {
  const fresh = JSON.stringify(freshTracker("issue-update-labeled"));
  it.each([
    ["a delivery signed as Linear signs it", fresh, linearSignature(fresh), true],
    ["the body changed after signing", fresh.replace('"Issue"', '"Isue"'), linearSignature(fresh), false],
    ["a signature of other bytes", fresh, linearSignature(`${fresh} `), false],
    [
      "a webhookTimestamp ten minutes old (a replay)",
      JSON.stringify(freshTracker("issue-update-labeled", Date.now() - 10 * 60_000)),
      undefined,
      false,
    ],
  ])("%s", async (_case, raw, given, accepted) => {
    const signature = given ?? linearSignature(raw);
    expect(sdkAccepts(raw, signature)).toBe(accepted);
    const answer = await h.deliver("tracker", "Issue", raw, { signature });
    expect(answer.status === 202).toBe(accepted);
    if (!accepted) expect(answer.status).toBe(401);
  });
});
