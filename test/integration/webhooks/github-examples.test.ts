// Every example payload GitHub publishes for its webhooks (@octokit/webhooks-examples, pinned: real deliveries'
// bodies, 58 events, 329 examples), signed as GitHub signs them with @octokit/webhooks-methods' own `sign` (not our
// signBody) and posted to /webhooks/codehost: each is answered as docs/integrations.md documents (202, queued) and
// then processed by the worker (state `done`), whatever the event. GitHub itself cannot reach the test machine,
// so the test plays it, with GitHub's own bodies and GitHub's own signing code.
import { createRequire } from "node:module";
import { sign } from "@octokit/webhooks-methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../api/harness.js";
import { appliedRow, createWebhookHarness, newDeliveryId, SECRETS, type WebhookHarness } from "./harness.js";

/** The package is a JSON file behind a CommonJS main; its index.d.ts types it as an ES default it is not. */
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
  name: string;
  examples: unknown[];
}[];

let h: WebhookHarness;
beforeAll(async () => {
  h = await createWebhookHarness();
});
afterAll(async () => {
  await h?.close();
});

const cases = examples.flatMap((event) =>
  event.examples.map((payload, index) => ({ event: event.name, index, raw: JSON.stringify(payload) })),
);

describe("GitHub's published example deliveries", () => {
  it("there are examples for every event the package documents (the pinned set, not an empty list)", () => {
    expect(examples.length).toBeGreaterThanOrEqual(50);
    expect(cases.length).toBeGreaterThanOrEqual(300);
  });

  it("every example, signed with @octokit/webhooks-methods, is answered 202 {ok: true} and processed (done)", async () => {
    const failures: string[] = [];
    for (const { event, index, raw } of cases) {
      const deliveryId = newDeliveryId();
      const signature = await sign(SECRETS.codehost, raw);
      const answer = await h.deliver("codehost", event, raw, { deliveryId, signature });
      if (answer.status !== 202 || answer.body?.ok !== true) {
        failures.push(`${event}[${index}]: ${answer.status} ${answer.text}`);
        continue;
      }
      const row = await until(() => appliedRow(h.db, deliveryId), `delivery ${deliveryId} to be applied`);
      if (row.state !== "done") failures.push(`${event}[${index}]: ${row.state} ${row.outcome ?? ""}`);
    }
    expect(failures).toEqual([]);
  }, 240_000);
});
