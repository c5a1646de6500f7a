// The egress flow of proxy-egress.test.ts on the namespace driver (issue 12: "the same flow on the namespace
// driver"): real `baton proxy` and `baton serve --sandbox-driver namespace` processes, a box made and driven
// through the admin routes. The startup script fetches from a private upstream test host with its secret's
// placeholder and succeeds (the proxy swaps in the value, outside the box); a direct connection fails; loopback
// and metadata through the proxy get the proxy's refusals; the value is nowhere in the box's environment, its
// files, any output or the services' logs.
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLocalSeed, detectEnvironment } from "../../src/envtest/seed.js";
import { type ChildService, startChild } from "../../src/testing/services.js";
import { readTree } from "../helpers/canary.js";
import { FIXTURES } from "../helpers/serve.js";
import { startTestNetwork, type TestNetwork } from "../integration/proxy/harness.js";

const CANARY = "canary-ns-proxy-91c5e0b3-never-print";
const ADMIN = randomBytes(32).toString("hex");
const OWNER = { workspaceId: "ws_test", engagementId: `eng-${randomBytes(4).toString("hex")}` };

async function freeLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === "object" && address ? address.port : 0;
}

describe("a namespace sandbox whose only way out is baton proxy", () => {
  const cleanups: (() => Promise<void>)[] = [];
  const services: ChildService[] = [];
  const outputs: string[] = [];
  let network: TestNetwork;
  let serviceUrl: string;
  let sandboxId: string;
  let boxFolder: string;

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${serviceUrl}/admin/v1${path}`, {
      method,
      headers: { "content-type": "application/json", "baton-admin-token": ADMIN },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    outputs.push(text);
    return { status: response.status, body: JSON.parse(text) };
  };
  const exec = async (script: string) => {
    const { status, body } = await admin("POST", `/sandboxes/${sandboxId}/exec`, {
      ...OWNER,
      command: ["bash", "-c", script],
      timeoutSeconds: 60,
      cwd: "/home/agent/checkouts/acme/api",
    });
    expect(status).toBe(200);
    return body as { exitCode: number; stdout: string; stderr: string };
  };

  beforeAll(async () => {
    network = await startTestNetwork(cleanups);
    const checkout = mkdtempSync(join(network.dir, "checkout-"));
    cpSync(join(FIXTURES, "repos", "acme-api"), checkout, { recursive: true });
    writeFileSync(
      join(checkout, "scripts", "start.sh"),
      '#!/bin/sh\nset -e\ncurl -sS --fail --max-time 20 -H "Authorization: Bearer $API_TOKEN" https://api.acme.test/echo\n',
      { mode: 0o755 },
    );
    const config = join(network.dir, "proxy.json");
    writeFileSync(
      config,
      JSON.stringify({
        allow: [{ name: "test-upstream", cidr: [`${network.upstream.address}/32`] }],
        dns: { servers: [network.dns.server] },
        upstreamCaFile: network.upstreamCaFile,
      }),
    );
    const seed = join(network.dir, "seed.json");
    writeFileSync(
      seed,
      JSON.stringify(
        buildLocalSeed({
          workspaceId: OWNER.workspaceId,
          repository: "acme/api",
          secrets: [{ name: "API_TOKEN", value: CANARY, allowedHosts: ["api.acme.test"] }],
          environment: detectEnvironment((path) => existsSync(join(checkout, path))),
        }),
      ),
      { mode: 0o600 },
    );
    const env = {
      ...process.env,
      BATON_LOG_LEVEL: "debug",
      BATON_ADMIN_TOKEN: ADMIN,
      BATON_PROXY_TOKEN: randomBytes(32).toString("hex"),
    };
    // The admin listener's port first, so the proxy and the service can each be told where the other is.
    const adminPort = await freeLoopbackPort();
    const proxy = await startChild(
      [
        "proxy",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--json",
        "--serve-url",
        `http://127.0.0.1:${adminPort}`,
        "--config",
        config,
        "--state-dir",
        join(network.dir, "proxy-state"),
      ],
      env,
    );
    services.push(proxy);
    const serve = await startChild(
      [
        "serve",
        "--port",
        "0",
        "--admin-listen",
        `127.0.0.1:${adminPort}`,
        "--db",
        // Apart from the checkout: a checkout root inside the data folder is refused.
        join(network.dir, "serve", "serve.sqlite"),
        "--seed",
        seed,
        "--json",
        "--sandbox-driver",
        "namespace",
        "--sandbox-proxy",
        new URL(String(proxy.ready.url)).host,
        "--checkout-root",
        checkout,
      ],
      env,
    );
    services.push(serve);
    serviceUrl = String(serve.ready.adminUrl);
    const made = await admin("POST", "/sandboxes", { ...OWNER, repository: "acme/api", checkout });
    expect(made.status).toBe(201);
    sandboxId = made.body.sandboxId;
    boxFolder = made.body.sandbox.ref;
  }, 180_000);

  afterAll(async () => {
    // A stopped service leaves its boxes for the next start to adopt: this one's box is removed first.
    if (sandboxId)
      await admin(
        "DELETE",
        `/sandboxes/${sandboxId}?workspaceId=${OWNER.workspaceId}&engagementId=${OWNER.engagementId}`,
      ).catch(() => {});
    for (const service of services.reverse()) await service.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("the startup script reaches the private upstream through the proxy with its placeholder", async () => {
    for (const step of ["baton env activate acme/api --json", "baton dockerfile apply acme/api --json"])
      expect((await exec(step)).exitCode).toBe(0);
    const startup = await exec("node ~/.baton/runner/baton-runner.cjs --repo acme/api");
    expect(JSON.parse(startup.stdout)).toMatchObject({ outcome: "succeeded", exitCode: 0 });
    const reached = network.lines.filter((line) => line.url === "/echo").at(-1);
    expect(reached?.headers.authorization).toBe(`Bearer ${CANARY}`); // swapped by the proxy, outside the box
  });

  it("a direct connection fails; loopback and metadata through the proxy get the proxy's refusals", async () => {
    const direct = await exec(
      `curl -sS --noproxy '*' --max-time 10 -o /dev/null https://${network.upstream.address}/`,
    );
    expect(direct.exitCode).not.toBe(0);
    const refused = await exec(
      'for u in http://127.0.0.1:1/ http://169.254.169.254/latest/meta-data/; do curl -s --noproxy "" -o /dev/null -w "%{http_code} " -D - "$u" | tr -d "\\r" | grep -i "^baton-proxy-error" ; done',
    );
    expect(refused.stdout.trim().split("\n")).toEqual([
      "baton-proxy-error: destination_denied",
      "baton-proxy-error: destination_denied",
    ]);
  });

  it("the real value exists nowhere in the box: environment, files, outputs, service logs", async () => {
    const env = (await exec("env")).stdout;
    expect(env).toContain("baton-secret-sec_");
    const files = await readTree(boxFolder);
    expect(files).toContain("baton-secret-sec_");
    const logs = services.map((s) => s.stderr()).join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const text of [env, files, logs, ...outputs]) expect(text).not.toContain(CANARY);
  });
});
