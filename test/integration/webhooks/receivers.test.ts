// POST /webhooks/codehost and /webhooks/tracker: GitHub's and Linear's signature schemes over the raw body, the
// replay window, the body bound, dedup by delivery id, and the audit line of a refused delivery. The platforms
// are played by the test (nothing external is reachable): it signs the fixtures with the test secret.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_INTEGRATIONS } from "../../../src/server/adapters/integrations/settings.js";
import { signBody } from "../../../src/server/surfaces/webhooks/verify.js";
import {
  CODEHOST_HEADERS,
  WEBHOOK_LIMITS,
  WEBHOOKS_BASE_PATH,
} from "../../../src/server/surfaces/webhooks/wire.js";
import { until } from "../api/harness.js";
import {
  createWebhookHarness,
  deliveryRow,
  fixture,
  freshTracker,
  newDeliveryId,
  SECRETS,
  taskOfTicket,
  type WebhookHarness,
} from "./harness.js";

let h: WebhookHarness;
beforeAll(async () => {
  h = await createWebhookHarness();
});
afterAll(async () => {
  // The webhook secrets are canaries: no answer and no log line of the whole suite holds one.
  const all = [...h.seen, ...h.logs].join("\n");
  expect(all.length).toBeGreaterThan(0);
  for (const secret of Object.values(SECRETS)) expect(all).not.toContain(secret);
  await h.close();
});

const rows = async () =>
  ((await h.db.get("SELECT count(*) AS n FROM webhook_deliveries")) as { n: number }).n;
const rejectedLines = () => h.logs.filter((line) => line.includes('"event":"webhook.rejected"'));

describe("a delivery that is not the platform's is refused 401 and never processed", () => {
  const body = JSON.stringify(fixture("codehost", "issues-labeled"));
  it.each([
    ["no signature", null, "missing_signature"],
    ["a signature made with another secret", `sha256=${signBody("another-secret", body)}`, "bad_signature"],
    ["the right HMAC without the sha256= prefix", signBody(SECRETS.codehost, body), "bad_signature"],
    ["a truncated signature", `sha256=${signBody(SECRETS.codehost, body).slice(0, 63)}`, "bad_signature"],
    ["a signature that is not hex", `sha256=${"z".repeat(64)}`, "bad_signature"],
    ["a signature over other bytes", `sha256=${signBody(SECRETS.codehost, `${body} `)}`, "bad_signature"],
  ])(
    "code host, %s: 401 invalid_signature, an audit line webhook.rejected, no queued delivery",
    async (_case, signature, why) => {
      const before = rows();
      const deliveryId = newDeliveryId();
      const answer = await h.deliver("codehost", "issues", body, { signature, deliveryId });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({
        error: "invalid_signature",
        reason: expect.any(String),
        requestId: expect.any(String),
      });
      expect(await rows()).toBe(await before);
      const line = JSON.parse(rejectedLines().find((l) => l.includes(deliveryId))!);
      expect(line).toMatchObject({
        event: "webhook.rejected",
        source: "codehost",
        delivery: deliveryId,
        why,
      });
      // The audit line names the delivery, never the body.
      expect(JSON.stringify(line)).not.toContain("Parser crashes");
    },
  );

  it("tracker: Linear-Signature is the bare hex HMAC; a wrong one is 401", async () => {
    const payload = JSON.stringify(freshTracker("issue-update-labeled"));
    const wrong = await h.deliver("tracker", "Issue", payload, { signature: signBody("nope", payload) });
    expect(wrong.status).toBe(401);
    const missing = await h.deliver("tracker", "Issue", payload, { signature: null });
    expect(missing.status).toBe(401);
  });

  it.each([
    ["61 s old", -61_000],
    ["61 s ahead", 61_000],
  ])("tracker: a webhookTimestamp %s is refused as a replay (stale_timestamp)", async (_case, skew) => {
    const deliveryId = newDeliveryId();
    const answer = await h.deliver(
      "tracker",
      "Issue",
      freshTracker("issue-update-labeled", Date.now() + skew),
      {
        deliveryId,
      },
    );
    expect(answer.status).toBe(401);
    expect(rejectedLines().some((l) => l.includes(deliveryId) && l.includes('"why":"stale_timestamp"'))).toBe(
      true,
    );
    expect(await deliveryRow(h.db, deliveryId)).toBeUndefined();
  });
});

describe("a verified delivery is queued and answered before the work runs", () => {
  it("202 {ok: true}; the same delivery id again is 200 {ok: true, duplicate: true} and the work is done once", async () => {
    const deliveryId = newDeliveryId();
    const payload = fixture("codehost", "issues-labeled");
    payload.issue.id = 7001;
    payload.issue.number = 71;
    const first = await h.deliver("codehost", "issues", payload, { deliveryId });
    expect(first).toMatchObject({ status: 202, body: { ok: true } });
    const again = await h.deliver("codehost", "issues", payload, { deliveryId });
    expect(again).toMatchObject({ status: 200, body: { ok: true, duplicate: true } });
    await until(
      async () => (await deliveryRow(h.db, deliveryId))?.state === "done",
      "the delivery to be applied",
    );
    const third = await h.deliver("codehost", "issues", payload, { deliveryId });
    expect(third.body).toEqual({ ok: true, duplicate: true });
    expect(await h.db.get("SELECT count(*) AS n FROM tasks WHERE ticket_id = '7001'")).toEqual({ n: 1 });
    expect(await taskOfTicket(h.db, "7001")).toBeDefined();
  });

  it("a tracker delivery within the window is queued (202)", async () => {
    const payload = freshTracker("oauthapp-revoked");
    payload.organizationId = "some-other-org";
    const answer = await h.deliver("tracker", "OAuthApp", payload);
    expect(answer.status).toBe(202);
  });

  it.each([
    ["no delivery id", { [CODEHOST_HEADERS.event]: "issues" }],
    ["no event", { [CODEHOST_HEADERS.delivery]: "d-no-event" }],
  ])("a signed delivery with %s is refused 400", async (_case, headers) => {
    const raw = JSON.stringify(fixture("codehost", "issues-labeled"));
    const response = await h.app.http.request(`${WEBHOOKS_BASE_PATH}/codehost`, {
      method: "POST",
      headers: { ...headers, [CODEHOST_HEADERS.signature]: `sha256=${signBody(SECRETS.codehost, raw)}` },
      body: raw,
    });
    expect(response.status).toBe(400);
    h.seen.push(await response.text());
  });

  it("a signed body that is not a JSON object is refused 400", async () => {
    const answer = await h.deliver("codehost", "issues", "[1, 2]");
    expect(answer.status).toBe(400);
  });
});

describe("a signed body nested deeper than the bound is refused 400, never a 500 (issue 35 A.10)", () => {
  const nested = (depth: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ ...extra, deep: null }).replace(
      '"deep":null',
      `"deep":${"[".repeat(depth)}${"]".repeat(depth)}`,
    );
  it.each([
    ["code host", "codehost", "issues", () => nested(10_000)],
    ["tracker", "tracker", "Issue", () => nested(10_000, { webhookTimestamp: Date.now() })],
  ] as const)(
    "%s: a validly signed body nested 10,000 deep is 400 invalid_request that names the bound, and an audit line",
    async (_case, source, event, body) => {
      const deliveryId = newDeliveryId();
      const answer = await h.deliver(source, event, body(), { deliveryId });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({
        error: "invalid_request",
        reason: expect.stringContaining(`${WEBHOOK_LIMITS.jsonDepth}`),
      });
      const line = JSON.parse(rejectedLines().find((l) => l.includes(deliveryId))!);
      expect(line).toMatchObject({ source, delivery: deliveryId, why: "too_deep" });
    },
  );

  it("a body nested exactly to the bound is queued (202)", async () => {
    // The object itself is one level, the field's arrays the rest.
    const answer = await h.deliver("codehost", "issues", nested(WEBHOOK_LIMITS.jsonDepth - 1));
    expect(answer.status).toBe(202);
  });
});

describe("the body is bounded before it is read: 1 MiB", () => {
  it("a Content-Length over 1 MiB is refused 413 at once", async () => {
    const response = await h.app.http.request(`${WEBHOOKS_BASE_PATH}/codehost`, {
      method: "POST",
      headers: { "content-length": String(1024 * 1024 + 1), [CODEHOST_HEADERS.event]: "issues" },
      body: "x".repeat(1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    h.seen.push(await response.text());
  });

  it("a streamed body is refused 413 as soon as it passes 1 MiB, never read whole", async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let cancelled = false;
    // An endless body: only a reader that stops at the bound ends it.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const response = await h.app.http.request(`${WEBHOOKS_BASE_PATH}/codehost`, {
      method: "POST",
      headers: { [CODEHOST_HEADERS.event]: "issues" },
      body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    h.seen.push(await response.text());
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(1024 * 1024 + 4 * chunk.byteLength);
  });
});

describe("without the platform's webhook secret the receiver does not exist", () => {
  it("404 for both receivers on a service with no webhook secret", async () => {
    const bare = await createWebhookHarness({ integrations: LOCAL_INTEGRATIONS });
    try {
      for (const source of ["codehost", "tracker"] as const) {
        const answer = await bare.deliver(source, "issues", fixture("codehost", "issues-labeled"));
        expect(answer.status).toBe(404);
      }
    } finally {
      await bare.close();
    }
  });
});
