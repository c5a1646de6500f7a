// @linear/sdk is loaded when the service first needs it, not when `baton serve` starts (issue 35 16b): a real
// `baton serve` with the Linear tracker and its webhook configured is started with a module hook that records every
// module it resolves (Node's registerHooks, preloaded through NODE_OPTIONS) and writes them out as it exits. Started
// and stopped, it has loaded none of @linear/; after one signed Linear delivery it has loaded the SDK's webhook
// verifier, which shows the record sees a module the service loads late. The tracker is the loopback fake (no
// Linear is reachable from here); its client bundles are test/integration/cli/no-vendor-sdks.test.ts's concern.
import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TRACKER_HEADERS, WEBHOOK_ROUTE_PATTERNS } from "../../../src/server/surfaces/webhooks/wire.js";
import type { FakeTracker } from "../../helpers/fake-tracker.js";
import { type ServeHandle, startServe } from "../../helpers/serve.js";
import { CLIENT, createFakeLinear } from "./fixture.js";

const WEBHOOK_SECRET = "sdk-loading-webhook-secret";
const LINEAR = /\/node_modules\/@linear\//;

let dir: string;
let fake: FakeTracker;
let hook: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "linear-sdk-loading-"));
  fake = await createFakeLinear().start();
  hook = join(dir, "record-modules.mjs");
  await writeFile(
    hook,
    `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const found = next(specifier, context); seen.add(found.url); return found; } });
process.on("exit", () => writeFileSync(process.env.RECORD_MODULES_TO, JSON.stringify([...seen])));
`,
  );
  await writeFile(join(dir, "client-secret"), CLIENT.secret);
  await writeFile(join(dir, "webhook-secret"), WEBHOOK_SECRET);
});
afterAll(async () => {
  await fake?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function serveRecording(record: string): Promise<ServeHandle> {
  return startServe({
    env: { NODE_OPTIONS: `--import=${hook}`, RECORD_MODULES_TO: record },
    args: [
      ["--tracker-client-id", CLIENT.id],
      ["--tracker-client-secret-file", join(dir, "client-secret")],
      ["--tracker-webhook-secret-file", join(dir, "webhook-secret")],
      ["--tracker-api-url", fake.url],
      ["--tracker-web-url", fake.url],
    ].flat(),
  });
}

const loaded = async (record: string) => JSON.parse(await readFile(record, "utf8")) as string[];

describe("`baton serve` loads @linear/sdk on first use only", () => {
  it("started with the Linear tracker and webhook configured, then stopped: no module of @linear/", async () => {
    const record = join(dir, "started.json");
    const serve = await serveRecording(record);
    await serve.stop();
    const modules = await loaded(record);
    // The record is real: the service's own modules are in it.
    expect(modules.some((m) => m.endsWith("/dist/src/server/app.js"))).toBe(true);
    expect(modules.filter((m) => LINEAR.test(m))).toEqual([]);
  });

  it("one signed Linear delivery loads the SDK's webhook verifier", async () => {
    const record = join(dir, "delivered.json");
    const serve = await serveRecording(record);
    const raw = JSON.stringify({ action: "update", type: "Issue", data: {}, webhookTimestamp: Date.now() });
    const answer = await fetch(new URL(WEBHOOK_ROUTE_PATTERNS.tracker, serve.url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        [TRACKER_HEADERS.event]: "Issue",
        [TRACKER_HEADERS.delivery]: `sdk-loading-${Date.now()}`,
        [TRACKER_HEADERS.signature]: createHmac("sha256", WEBHOOK_SECRET).update(raw).digest("hex"),
      },
      body: raw,
    });
    expect(answer.status).toBe(202);
    await serve.stop();
    expect((await loaded(record)).filter((m) => LINEAR.test(m))).toContainEqual(
      expect.stringMatching(/@linear\/sdk\/dist\/webhooks\/index\.mjs$/),
    );
  });
});
