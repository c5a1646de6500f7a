// `baton proxy` throttles unknown leases per source address (issue 21 item 3): a flood of made-up leases from one
// address gets 407 `lease_required` up to the limit, then 429 with `Baton-Proxy-Error: lease_failures_throttled`
// and Retry-After, without asking `baton serve` again; a sandbox's real lease from another address still passes
// the lease check; the flood is two log lines. Real `baton serve` and `baton proxy` processes on loopback.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUDIT_EVENTS } from "../../../src/audit/events.js";
import { PROXY_ERRORS, PROXY_HEADERS } from "../../../src/proxy/wire.js";
import { DEFAULT_THROTTLE_LIMITS } from "../../../src/throttle/failed-credentials.js";
import { BATON_BIN } from "../../helpers/cli.js";
import { type AddressedAnswer, requestFrom } from "../../helpers/from-address.js";
import { pollUntil } from "../../helpers/poll.js";
import {
  ACTIVATION_SEED,
  createSandbox,
  killLeftoverServes,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

const PROXY_TOKEN = "9e3f5a1c7b2d4e6f8a0c1e3b5d7f9a2c4e6b8d0f1a3c5e7b9d2f4a6c8e0b1d3f";
const FLOOD = 300;
const LIMIT = DEFAULT_THROTTLE_LIMITS.maxFailures;
/** A destination the proxy always denies (loopback): reaching that refusal means the lease was accepted. */
const TARGET = "http://127.0.0.1:9/";

let serve: ServeHandle;
let proxy: ChildProcess;
let proxyUrl = "";
let proxyErr = "";
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lease-failures-"));
  serve = await startServe({ seed: ACTIVATION_SEED, env: { BATON_PROXY_TOKEN: PROXY_TOKEN } });
  proxy = spawn(
    process.execPath,
    [
      BATON_BIN,
      "proxy",
      "--host",
      "127.0.0.1",
      "--serve-url",
      serve.adminUrl,
      "--state-dir",
      join(dir, "state"),
      "--json",
    ],
    // BATON_LOG_LEVEL unset: `baton proxy` logs at info by default.
    {
      env: { ...process.env, BATON_LOG_LEVEL: "", BATON_PROXY_TOKEN: PROXY_TOKEN },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  proxy.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  proxy.stderr!.on("data", (chunk: Buffer) => {
    proxyErr += chunk.toString();
  });
  const line = await pollUntil(
    async () => out.split("\n").find((l) => l.startsWith("{")),
    (found) => found !== undefined,
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  proxyUrl = (JSON.parse(line!) as { url: string }).url;
}, 90_000);
afterAll(async () => {
  proxy?.kill("SIGKILL");
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

describe("baton proxy throttles unknown leases per source address", () => {
  it("300 made-up leases: 407 up to the limit, then 429 lease_failures_throttled with Retry-After", async () => {
    const answers: AddressedAnswer[] = [];
    for (let i = 0; i < FLOOD; i++) answers.push(await absolute("127.0.0.3", `made-up-lease-${i}`));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, LIMIT)).toEqual(Array(LIMIT).fill(407));
    expect(statuses.slice(LIMIT)).toEqual(Array(FLOOD - LIMIT).fill(429));
    for (const answer of answers.slice(LIMIT)) {
      expect(answer.headers[PROXY_HEADERS.error]).toBe(PROXY_ERRORS.leaseFailuresThrottled.code);
      expect(Number(answer.headers[PROXY_HEADERS.retryAfter])).toBeGreaterThanOrEqual(1);
      expect(answer.text).toMatch(/^baton proxy: .*too many unknown or expired leases/);
    }

    const sandbox = await createSandbox(serve, {
      workspaceId: "ws_acme",
      engagementId: "eng-proxy-throttle",
    });
    const lease = sandbox.env.BATON_SANDBOX_LEASE!;
    // The flooding address is refused even with a real lease; another address gets past the lease check.
    expect((await absolute("127.0.0.3", lease)).status).toBe(429);
    const elsewhere = await absolute("127.0.0.2", lease);
    expect(elsewhere.headers[PROXY_HEADERS.error]).toBe(PROXY_ERRORS.destinationDenied.code);

    const lines = proxyErr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .filter((l) => l.source === "127.0.0.3");
    expect(lines.map((l) => l.event)).toEqual([
      AUDIT_EVENTS.credentialFailed,
      AUDIT_EVENTS.credentialThrottled,
    ]);
    expect(proxyErr).not.toContain(lease);
  });
});

/** An absolute-form request through the proxy, from `from`. */
function absolute(from: string, lease: string): Promise<AddressedAnswer> {
  return requestFrom(from, proxyUrl, {
    headers: { [PROXY_HEADERS.proxyAuthorization]: `Bearer ${lease}` },
    target: TARGET,
  });
}
