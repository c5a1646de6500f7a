// `baton proxy` and `baton serve` as the operator runs them: the proxy asks the service about each lease over
// the internal route (BATON_PROXY_TOKEN), activation writes the proxy settings into environment.sh, a sandbox
// shell (its own network namespace) goes out through the proxy with nothing set by hand, the refusals reach
// `baton op get` and the disclosure, and SIGTERM drains an open tunnel.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";
import { createSandbox, type ServeHandle, startServe } from "../../helpers/serve.js";
import { eventually, startTestNetwork, type TestNetwork } from "./harness.js";

const CANARY = "canary-serve-proxy-3e9a1c5b-never-print";
// 64 hex characters: baton serve refuses a proxy token weaker than 32 random bytes.
const PROXY_TOKEN = createHash("sha256").update("baton serve-and-proxy test proxy token").digest("hex");

let network: TestNetwork;
let serve: ServeHandle;
let proxy: ChildProcess;
let proxyUrl = "";
let proxyOut = "";
let proxyExit: Promise<number | string>;
let home = "";
let sandboxEnv: Record<string, string> = {};
const cleanups: (() => Promise<void>)[] = [];
const outputs: string[] = [];

beforeAll(async () => {
  network = await startTestNetwork(cleanups);
  const { dir, upstream, dns, upstreamCaFile } = network;
  const seed = join(dir, "seed.json");
  await writeFile(
    seed,
    JSON.stringify({
      workspaces: [
        {
          id: "ws_proxy",
          name: "Proxy",
          rollout: { repositoryEnvironments: true },
          repositories: [
            {
              repository: "acme/api",
              secrets: [{ name: "API_TOKEN", value: CANARY, allowedHosts: ["api.acme.test"] }],
            },
          ],
        },
      ],
    }),
  );
  serve = await startServe({ seed, env: { BATON_PROXY_TOKEN: PROXY_TOKEN, BATON_LOG_LEVEL: "debug" } });
  const config = join(dir, "proxy.json");
  await writeFile(
    config,
    JSON.stringify({
      allow: [{ name: "test-upstream", cidr: [`${upstream.address}/32`] }],
      dns: { servers: [dns.server] },
      upstreamCaFile,
    }),
  );
  proxy = spawn(
    process.execPath,
    [
      BATON_BIN,
      "proxy",
      "--host",
      network.sandbox.gateway,
      "--serve-url",
      serve.adminUrl,
      "--config",
      config,
      "--state-dir",
      join(dir, "proxy-state"),
      "--json",
    ],
    {
      env: { ...process.env, BATON_PROXY_TOKEN: PROXY_TOKEN, BATON_LOG_LEVEL: "debug" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  proxyExit = new Promise((resolve) => proxy.once("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const collect = (chunk: Buffer) => {
    proxyOut += chunk.toString();
  };
  proxy.stdout!.on("data", collect);
  proxy.stderr!.on("data", collect);
  const line = await eventually(() => proxyOut.split("\n").find((l) => l.startsWith("{")), 30_000);
  proxyUrl = (JSON.parse(line) as { url: string }).url;

  const sandbox = await createSandbox(serve, { workspaceId: "ws_proxy", engagementId: "eng-proxy" });
  home = join(dir, "home");
  await mkdir(join(home, "checkouts", "acme", "api"), { recursive: true });
  sandboxEnv = { ...sandbox.env, BATON_PROXY_URL: proxyUrl, HOME: home };
}, 120_000);

afterAll(async () => {
  proxy?.kill("SIGKILL");
  await serve?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** A login-less shell in the sandbox namespace that sources environment.sh, as every new sandbox shell does. */
async function sandboxShell(script: string) {
  const result = await network.sandbox.exec("bash", ["-c", `. "$HOME/.baton/environment.sh" && ${script}`], {
    env: { PATH: process.env.PATH, HOME: home },
  });
  outputs.push(result.stdout, result.stderr);
  return result;
}

describe("baton proxy beside baton serve", () => {
  it("prints one listening line with its URL and CA file (0600)", async () => {
    const line = JSON.parse(proxyOut.split("\n").find((l) => l.startsWith("{"))!) as { caFile: string };
    expect(proxyUrl).toBe(`http://${network.sandbox.gateway}:${new URL(proxyUrl).port}`);
    expect((await stat(line.caFile)).mode & 0o777).toBe(0o600);
  });

  it("activation writes the proxy settings and the trust bundle into environment.sh", async () => {
    const run = await runBaton(["env", "activate", "acme/api"], { env: sandboxEnv });
    outputs.push(run.stdout, run.stderr);
    expect(run.exitCode).toBe(0);
    const file = await readFile(join(home, ".baton", "environment.sh"), "utf8");
    expect(file).toContain(`export HTTPS_PROXY='http://baton:${sandboxEnv.BATON_SANDBOX_LEASE}@`);
    expect(file).toContain("export NO_PROXY='localhost,127.0.0.1,::1'");
    const bundle = await readFile(join(home, ".baton", "ca-bundle.pem"), "utf8");
    const ca = await runBaton(["proxy", "ca", "--from", proxyUrl]);
    expect(ca.exitCode).toBe(0);
    expect(bundle.endsWith(ca.stdout)).toBe(true);
    expect(bundle.split("BEGIN CERTIFICATE").length).toBeGreaterThan(3);
  });

  it("a sandbox shell's placeholder becomes the value at the approved host only; the echo comes back scrubbed", async () => {
    const result = await sandboxShell(
      'curl -sS --max-time 20 -H "Authorization: Bearer $API_TOKEN" https://api.acme.test/echo',
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Bearer baton-secret-sec_[0-9a-f]{32}/);
    const reached = network.lines.filter((l) => l.url === "/echo").at(-1)!;
    expect(reached.headers.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("loopback (when sent to the proxy), metadata and an unknown name are refused with the proxy's codes", async () => {
    // NO_PROXY keeps the sandbox's own loopback direct; --noproxy '' sends it to the proxy anyway.
    const codes = await sandboxShell(
      'for u in http://127.0.0.1:1/ http://169.254.169.254/ http://nowhere.acme.test/; do curl -s --noproxy "" -o /dev/null -w "%{http_code} " "$u"; done',
    );
    expect(codes.stdout.trim()).toBe("403 403 502");
  });

  it("the refusals reach baton op get and the disclosure", async () => {
    const activation = await runBaton(["env", "activate", "acme/api", "--no-wait", "--json"], {
      env: sandboxEnv,
    });
    const id = (JSON.parse(activation.stdout) as { id: string }).id;
    const shown = await eventually(async () => {
      const run = await runBaton(["op", "get", id], { env: sandboxEnv });
      return run.stdout.includes("169.254.169.254:80 -> 403 destination_denied") ? run : undefined;
    });
    const text = shown.stdout;
    outputs.push(text);
    expect(text).toContain("Egress proxy refusals for this sandbox");
    expect(text).toContain("nowhere.acme.test:80 -> 502 dns_failed");
    const disclosure = await runBaton(["disclose", "acme/api"], { env: sandboxEnv });
    outputs.push(disclosure.stdout, disclosure.stderr);
    expect(disclosure.stdout).toContain("### Egress proxy");
    expect(disclosure.stdout).toContain("`GET 169.254.169.254:80`");
  });

  it("baton proxy check prints the decision without connecting: exit 0 allowed, 1 denied", async () => {
    const config = join(network.dir, "proxy.json");
    const allowed = await runBaton([
      "proxy",
      "check",
      "https://api.acme.test/v1",
      "--config",
      config,
      "--json",
    ]);
    expect(allowed.exitCode).toBe(0);
    expect(JSON.parse(allowed.stdout)).toMatchObject({
      decision: "allow",
      host: "api.acme.test",
      port: 443,
      resolved: [network.upstream.address],
      rule: "test-upstream",
    });
    const denied = await runBaton(["proxy", "check", "169.254.169.254:80", "--config", config]);
    expect(denied.exitCode).toBe(1);
    expect(denied.stdout).toContain("deny 169.254.169.254:80: link_local_metadata address");
  });

  it("no output, log, audit line, file or disclosure holds the secret's value", async () => {
    const tree = [await readFile(join(home, ".baton", "environment.sh"), "utf8"), await serve.dump()];
    const all = [...outputs, proxyOut, serve.output(), ...tree].join("\n");
    expect(all).toContain("baton-secret-sec_");
    expect(all).not.toContain(CANARY);
  });

  it("rotate-ca then SIGHUP: the placeholder path signs with the new CA", async () => {
    const state = join(network.dir, "proxy-state");
    const rotated = await runBaton(["proxy", "rotate-ca", "--state-dir", state]);
    expect(rotated.exitCode).toBe(0);
    proxy.kill("SIGHUP");
    const ok = await eventually(async () => {
      const result = await sandboxShell(
        `curl -sS --max-time 10 --cacert ${join(state, "ca.pem")} -o /dev/null -w "%{http_code}" https://api.acme.test/`,
      );
      return result.stdout === "200" ? result : undefined;
    });
    expect(ok.stdout).toBe("200");
  });

  it("SIGTERM drains an open tunnel: it keeps working, new connections are refused, the proxy exits 0", async () => {
    const lease = sandboxEnv.BATON_SANDBOX_LEASE!;
    const { port } = new URL(proxyUrl);
    const socket = connect({ host: network.sandbox.gateway, port: Number(port) });
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString();
    });
    const auth = Buffer.from(`baton:${lease}`).toString("base64");
    socket.write(
      `CONNECT api.acme.test:80 HTTP/1.1\r\nHost: api.acme.test:80\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`,
    );
    await eventually(() => (received.includes("200 Connection Established") ? true : undefined));
    proxy.kill("SIGTERM");
    await eventually(async () => {
      const refused = await new Promise<boolean>((resolve) => {
        const probe = connect({ host: network.sandbox.gateway, port: Number(port) });
        probe.once("connect", () => {
          probe.destroy();
          resolve(false);
        });
        probe.once("error", () => resolve(true));
      });
      return refused ? true : undefined;
    });
    socket.write("GET /after-sigterm HTTP/1.1\r\nHost: api.acme.test\r\nConnection: close\r\n\r\n");
    await eventually(() => (received.includes("hello from api") ? true : undefined));
    socket.destroy();
    expect(await proxyExit).toBe(0);
    expect(network.lines.some((l) => l.url === "/after-sigterm")).toBe(true);
  });
});
