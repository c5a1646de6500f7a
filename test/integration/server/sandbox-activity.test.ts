// DESIGN "Sandbox activity": any operation, command or lease use restarts a sandbox's 2-hour idle clock. A box
// whose only traffic goes out through `baton proxy` (the proxy asks the service about its lease) is in use too.
// The box row is what the sandbox manager records at creation; only its activity time matters here, so it is
// written with the manager's own store function (test/container runs the manager on real drivers).
import { afterEach, describe, expect, it } from "vitest";
import { PROXY_INTERNAL_PATHS, PROXY_TOKEN_HEADER } from "../../../src/proxy/lease/wire.js";
import { getBox, insertBox } from "../../../src/server/adapters/sandboxes/store.js";
import { type Credentials, createHarness, type Harness, PROXY_TOKEN } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const LONG_AGO = Date.parse("2026-01-01T00:00:00Z");

async function recordBox(h: Harness, creds: Credentials): Promise<void> {
  await insertBox(h.db, {
    sandboxId: creds.sandboxId,
    workspaceId: "ws_acme",
    engagementId: creds.engagementId,
    driver: "docker",
    boxRef: "box-activity",
    image: "baton-sandbox:test",
    repository: "acme/api",
    state: "running",
    lastActivityAtMs: LONG_AGO,
    stateChangedAtMs: LONG_AGO,
    createdAtMs: LONG_AGO,
    reach: {},
    batonrc: null,
  });
}

describe("sandbox activity", () => {
  it.each([
    [
      "an operations request with the lease (an activation)",
      (h: Harness, creds: Credentials) => h.start(creds, "acme/api"),
    ],
    // The activation records the lease use in its own transaction; a request refused before or inside it still
    // counts, recorded by the route's credentials check instead.
    [
      "an activation refused for an unknown repository (404)",
      (h: Harness, creds: Credentials) => h.start(creds, "acme/no-such-repository"),
    ],
    ["an activation whose body is refused (400)", (h: Harness, creds: Credentials) => h.start(creds, "")],
    [
      "the egress proxy looking the lease up (a request through the proxy)",
      (h: Harness, creds: Credentials) =>
        h.request("POST", PROXY_INTERNAL_PATHS.lease, {
          headers: { [PROXY_TOKEN_HEADER]: PROXY_TOKEN },
          body: { lease: creds.lease },
        }),
    ],
  ])("%s restarts the idle clock", async (_what, use) => {
    harness = await createHarness({ proxyToken: PROXY_TOKEN });
    const creds = await harness.sandbox("ws_acme", "eng-activity");
    await recordBox(harness, creds);
    await use(harness, creds);
    expect((await getBox(harness.db, creds.sandboxId))!.lastActivityAtMs).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });
});
