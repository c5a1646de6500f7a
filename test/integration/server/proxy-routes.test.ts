// The egress proxy's internal routes: with BATON_PROXY_TOKEN only (404 without one configured, 401 for a wrong
// one), the lease lookup opens the secrets of the sandbox's activated repositories; refusal reports are kept
// per sandbox and read back only by that sandbox.
import { afterEach, describe, expect, it } from "vitest";
import {
  LeasePolicyResponseSchema,
  PROXY_INTERNAL_PATHS,
  PROXY_TOKEN_HEADER,
} from "../../../src/proxy/lease/wire.js";
import { HEADERS, PROXY_REFUSALS_PATH } from "../../../src/transport/wire.js";
import { CANARIES, type Credentials, createHarness, type Harness, PROXY_TOKEN } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const internal = (h: Harness, path: string, body: unknown, token: string | null = PROXY_TOKEN) =>
  h.request("POST", path, { headers: token === null ? {} : { [PROXY_TOKEN_HEADER]: token }, body });
const ops = (creds: Credentials) => ({
  [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
  [HEADERS.sandboxLease]: creds.lease,
});

describe("the proxy's internal routes", () => {
  it("do not exist without a proxy token configured, and refuse a wrong one", async () => {
    harness = await createHarness();
    expect((await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: "x" })).status).toBe(404);
    await harness.close();
    harness = await createHarness({ proxyToken: PROXY_TOKEN });
    expect((await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: "x" }, "wrong")).status).toBe(401);
    expect((await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: "x" }, null)).status).toBe(401);
  });

  it("a lease lookup names the sandbox and opens the secrets of its activated repositories; unknown is 404", async () => {
    harness = await createHarness({ proxyToken: PROXY_TOKEN });
    const creds = await harness.sandbox("ws_acme", "eng-proxy");
    const before = LeasePolicyResponseSchema.parse(
      await (await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: creds.lease })).json(),
    );
    expect(before).toMatchObject({ sandboxId: creds.sandboxId, workspaceId: "ws_acme", secrets: [] });
    const started = await harness.start(creds, "acme/api");
    await harness.settle(creds, ((await started.json()) as { id: string }).id);
    const after = LeasePolicyResponseSchema.parse(
      await (await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: creds.lease })).json(),
    );
    expect(after.secrets.map((s) => s.value)).toContain(CANARIES[0]);
    expect(after.secrets[0]!.placeholder).toBe(`baton-secret-${after.secrets[0]!.id}`);
    expect((await internal(harness, PROXY_INTERNAL_PATHS.lease, { lease: "btl_nope" })).status).toBe(404);
  });

  it("refusals are kept per sandbox and read back only by it", async () => {
    harness = await createHarness({ proxyToken: PROXY_TOKEN });
    const mine = await harness.sandbox("ws_acme", "eng-a");
    const other = await harness.sandbox("ws_acme", "eng-b");
    const refusal = {
      sandboxId: mine.sandboxId,
      requestId: "prq_1",
      at: new Date().toISOString(),
      method: "GET",
      host: "169.254.169.254",
      port: 80,
      code: "destination_denied",
      status: 403,
      reason: "link_local_metadata address",
    };
    const stored = await internal(harness, PROXY_INTERNAL_PATHS.refusals, {
      refusals: [refusal, { ...refusal, sandboxId: "sbx_unknown" }],
    });
    expect(await stored.json()).toEqual({ stored: 1 });
    const read = await harness.request("GET", PROXY_REFUSALS_PATH, { headers: ops(mine) });
    const { sandboxId: _, ...wire } = refusal;
    expect(await read.json()).toEqual({ refusals: [wire] });
    const theirs = await harness.request("GET", PROXY_REFUSALS_PATH, { headers: ops(other) });
    expect(await theirs.json()).toEqual({ refusals: [] });
    expect((await harness.request("GET", PROXY_REFUSALS_PATH)).status).toBe(401);
  });
});
