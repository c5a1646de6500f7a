// Egress from a real container sandbox through the real `baton proxy`: the repository's startup script fetches
// from a private upstream test host with its secret's placeholder and succeeds (the proxy swaps in the value);
// the real value never exists inside the box (its environment, its files, every output); a direct connection
// fails; loopback and metadata through the proxy are refused with the proxy's error codes.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonSandbox, startSandbox } from "../../src/testing/index.js";
import { FIXTURES } from "../helpers/serve.js";
import { startTestNetwork, type TestNetwork } from "../integration/proxy/harness.js";

const CANARY = "canary-sandbox-proxy-4b8e2d7a-never-print";

describe("a container sandbox whose only way out is baton proxy", () => {
  const cleanups: (() => Promise<void>)[] = [];
  const outputs: string[] = [];
  let network: TestNetwork;
  let sandbox: BatonSandbox;

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
    sandbox = await startSandbox({
      checkout,
      repository: "acme/api",
      secrets: [{ name: "API_TOKEN", value: CANARY, allowedHosts: ["api.acme.test"] }],
      proxy: { args: ["--config", config, "--state-dir", join(network.dir, "proxy-state")] },
      serviceEnv: { BATON_LOG_LEVEL: "debug" },
    });
  }, 180_000);

  afterAll(async () => {
    await sandbox?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  });

  it("the startup script reaches the private upstream through the proxy with its placeholder", async () => {
    outputs.push(JSON.stringify(await sandbox.activate()));
    outputs.push(JSON.stringify(await sandbox.applyDockerfile()));
    const evidence = await sandbox.runStartup();
    outputs.push(JSON.stringify(evidence));
    expect(evidence).toMatchObject({ outcome: "succeeded", exitCode: 0 });
    const reached = network.lines.filter((line) => line.url === "/echo").at(-1);
    expect(reached?.headers.authorization).toBe(`Bearer ${CANARY}`); // swapped by the proxy, outside the box
  });

  it("a direct connection fails; loopback and metadata through the proxy get the proxy's refusals", async () => {
    const direct = await sandbox.exec(
      `curl -sS --noproxy '*' --max-time 10 -o /dev/null https://${network.upstream.address}/`,
    );
    outputs.push(direct.stdout, direct.stderr);
    expect(direct.exitCode).not.toBe(0);
    const refused = await sandbox.exec(
      'for u in http://127.0.0.1:1/ http://169.254.169.254/latest/meta-data/; do curl -s --noproxy "" -o /dev/null -w "%{http_code} " -D - "$u" | tr -d "\\r" | grep -i "^baton-proxy-error" ; done',
    );
    outputs.push(refused.stdout, refused.stderr);
    expect(refused.stdout.trim().split("\n")).toEqual([
      "baton-proxy-error: destination_denied",
      "baton-proxy-error: destination_denied",
    ]);
  });

  it("the real value exists nowhere in the box: environment, files, outputs, service logs", async () => {
    const inspect = execFileSync("docker", ["inspect", sandbox.containerId], { encoding: "utf8" });
    const files = execFileSync(
      "bash",
      ["-c", `docker export ${sandbox.containerId} | tar -xO 2>/dev/null | strings || true`],
      {
        encoding: "utf8",
        maxBuffer: 1024 * 1024 * 1024,
      },
    );
    const env = (await sandbox.exec("env")).stdout;
    expect(env).toContain("baton-secret-sec_");
    for (const text of [inspect, files, env, sandbox.serviceLog(), ...outputs])
      expect(text).not.toContain(CANARY);
  });
});
