// Issue 24 point 4: "Agents push through the egress proxy with the installation token as a secret placeholder
// approved for the code host only, so the token never enters the box." The real `baton proxy` binary asks a
// service about the lease over its internal route; git in the sandbox's own network namespace runs with nothing
// but the box's variables (the placeholder in an extraHeader) and the proxy settings. The code host is the test
// upstream on api.acme.test (TLS from a CA only the proxy trusts); other.acme.test is the same upstream under a
// name the token is not approved for. The service runs in process because its code-host App API is a stub that
// returns a canary token (codehost-world.ts: the GitHub adapter is built in parallel); everything between the
// box and the upstream is real: sockets, TLS, DNS, the proxy process and git, which clones and pushes to a git
// endpoint on api.acme.test:8443 that speaks git's smart HTTP protocol (`git http-backend`) and, like the code
// host, takes only Basic `x-access-token:<installation token>` (test/helpers/git-upstream.mjs).
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import type { Server } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../../src/server/index.js";
import { BATON_BIN, PROJECT_ROOT } from "../../helpers/cli.js";
import { CANARY_TOKEN, startWorld, type World } from "../server/codehost-world.js";
import { eventually, startTestNetwork, type TestNetwork } from "./harness.js";

const PROXY_TOKEN = createHash("sha256").update("baton codehost-token test proxy token").digest("hex");
const CODE_HOST = "api.acme.test";
const WEB_URL = `https://${CODE_HOST}:8443`;

let network: TestNetwork;
let world: World;
let service: Server;
let proxy: ChildProcess;
let proxyOut = "";
let proxyUrl = "";
let caFile = "";
let lease = "";
let boxEnv: Record<string, string> = {};
let placeholder = "";
const cleanups: (() => Promise<void>)[] = [];
const outputs: string[] = [];
const run = promisify(execFile);
/** What the git endpoint saw: one line per request, never the credentials. */
const gitLines: { method: string; url: string; user: string | null; authorized: boolean }[] = [];

beforeAll(async () => {
  network = await startTestNetwork(cleanups);
  const { dir, upstream, dns, upstreamCaFile } = network;
  world = await startWorld({
    app: true,
    webUrl: WEB_URL,
    destinations: [WEB_URL],
    proxyToken: PROXY_TOKEN,
  });
  cleanups.push(() => world.close());
  await startGitEndpoint(dir);
  service = createNodeServer(world.app.listeners.admin.fetch);
  await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => service.close(() => resolve())));
  const config = join(dir, "proxy.json");
  await writeFile(
    config,
    JSON.stringify({
      allow: [{ name: "test-upstream", cidr: [`${upstream.address}/32`] }],
      dns: { servers: [dns.server] },
      upstreamCaFile,
    }),
  );
  const serveUrl = `http://127.0.0.1:${(service.address() as { port: number }).port}`;
  proxy = spawn(
    process.execPath,
    [
      BATON_BIN,
      "proxy",
      "--host",
      network.sandbox.gateway,
      "--serve-url",
      serveUrl,
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
  cleanups.push(async () => {
    proxy.kill("SIGKILL");
  });
  const collect = (chunk: Buffer) => {
    proxyOut += chunk.toString();
  };
  proxy.stdout!.on("data", collect);
  proxy.stderr!.on("data", collect);
  const line = await eventually(() => proxyOut.split("\n").find((l) => l.startsWith("{")), 30_000);
  const started = JSON.parse(line) as { url: string; caFile: string };
  proxyUrl = started.url;
  // What a box trusts: the proxy's CA (requests it reads) and, for a tunnel it passes through unread, the
  // upstream's own (a real box trusts the public roots the same way).
  caFile = join(dir, "box-trust.pem");
  await writeFile(
    caFile,
    `${await readFile(started.caFile, "utf8")}\n${await readFile(upstreamCaFile, "utf8")}`,
  );

  const made = await world.manager.provision({
    workspaceId: "ws_acme",
    engagementId: "eng-codehost-push",
    repository: "acme/api",
  });
  lease = made.issued.lease;
  boxEnv = made.env;
  placeholder = `baton-secret-${world.installation.credentialId}`;
  await mkdir(join(dir, "home"), { recursive: true });
}, 120_000);

/** The code host's git endpoint in the upstream namespace, on 8443 with the upstream's certificate. */
async function startGitEndpoint(dir: string): Promise<void> {
  const bare = join(dir, "repos", "acme", "api.git");
  await mkdir(bare, { recursive: true });
  await run("git", ["init", "--quiet", "--bare", bare]);
  await writeFile(join(dir, "installation-token"), CANARY_TOKEN, { mode: 0o600 });
  const child = network.upstream.spawn(process.execPath, [
    join(PROJECT_ROOT, "test", "helpers", "git-upstream.mjs"),
    ...["--root", join(dir, "repos"), "--token-file", join(dir, "installation-token")],
    ...["--host", "0.0.0.0", "--port", "8443"],
    ...["--cert", join(dir, "upstream.pem"), "--key", join(dir, "upstream-key.pem")],
  ]);
  cleanups.push(async () => {
    child.kill("SIGKILL");
  });
  let ready = false;
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const parsed = JSON.parse(line) as { ready?: boolean };
    if (parsed.ready) ready = true;
    else gitLines.push(parsed as (typeof gitLines)[number]);
  });
  await eventually(() => (ready ? true : undefined), 10_000);
}

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** The box's own variables, with the proxy reached where this test's proxy listens. */
function sandboxEnv(): NodeJS.ProcessEnv {
  const viaProxy = `http://baton:${encodeURIComponent(lease)}@${new URL(proxyUrl).host}`;
  const git = Object.fromEntries(
    Object.entries(boxEnv).filter(
      ([name]) => name.startsWith("GIT_CONFIG") || name === "BATON_CODEHOST_TOKEN",
    ),
  );
  return {
    PATH: process.env.PATH,
    HOME: join(network.dir, "home"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_TERMINAL_PROMPT: "0",
    HTTPS_PROXY: viaProxy,
    https_proxy: viaProxy,
    GIT_SSL_CAINFO: caFile,
    CURL_CA_BUNDLE: caFile,
    ...git,
  };
}

async function inSandbox(command: string, args: string[]) {
  const result = await network.sandbox.exec(command, args, { env: sandboxEnv(), timeoutMs: 30_000 });
  outputs.push(result.stdout, result.stderr);
  return result;
}

const authorizationAt = (host: string, path: string) =>
  network.lines.filter((l) => l.url.startsWith(path) && l.headers.host === host).at(-1)?.headers
    .authorization;
const basic = (secret: string) => `Basic ${Buffer.from(`x-access-token:${secret}`).toString("base64")}`;

describe("pushing to the code host through baton proxy with the installation token's placeholder", () => {
  it("plain git clone and push with only the box's variables: the code host gets the token, the branch arrives", async () => {
    const work = join(network.dir, "home", "checkout");
    const script = [
      `git clone --quiet ${WEB_URL}/acme/api.git ${work}`,
      `cd ${work}`,
      "git checkout --quiet -b baton/proxy-push",
      "echo pushed > NOTES.md && git add NOTES.md",
      "git -c user.name=agent -c user.email=agent@baton.invalid commit --quiet -m push",
      "git push --quiet origin baton/proxy-push",
    ].join(" && ");
    const pushed = await inSandbox("bash", ["-c", script]);
    expect(pushed.code, pushed.stderr).toBe(0);
    const { stdout } = await run("git", [
      ...["--git-dir", join(network.dir, "repos", "acme", "api.git")],
      ...["rev-parse", "--verify", "refs/heads/baton/proxy-push"],
    ]);
    expect(stdout.trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(gitLines.some((l) => l.url.endsWith("/git-receive-pack"))).toBe(true);
    expect(gitLines.every((l) => l.authorized && l.user === "x-access-token")).toBe(true);
    // Nothing the box wrote holds the token: the remote URL and .git/config have no credentials.
    expect(await readFile(join(work, ".git", "config"), "utf8")).not.toContain(CANARY_TOKEN);
    // The proxy's audit line names the installation's credential as swapped, never its value.
    const audit = await eventually(() =>
      proxyOut
        .split("\n")
        .filter((l) => l.includes('"baton-proxy-audit"'))
        .map((l) => (JSON.parse(l) as { audit: Record<string, unknown> }).audit)
        .find((a) => a.host === CODE_HOST && a.method === "POST"),
    );
    expect(audit.substitution).toMatchObject({ swapped: [world.installation.credentialId], unapproved: [] });
  });

  it("the same header sent to a host the token is not approved for goes out with the placeholder unswapped", async () => {
    // No secret of this lease is approved there, so the proxy passes the tunnel through without reading it.
    await inSandbox("curl", [
      "-sS",
      "--max-time",
      "20",
      "-H",
      `Authorization: ${basic(placeholder)}`,
      "https://other.acme.test/acme/api.git/info/refs",
    ]);
    const seen = await eventually(() => authorizationAt("other.acme.test", "/acme/api.git/info/refs"));
    expect(seen).toBe(basic(placeholder));
  });

  it("the canary token appears in no box variable, command output, proxy output (audit lines included) or service log", async () => {
    // At least one decision line per request above, so the audit is there to search.
    await eventually(() => (proxyOut.includes("other.acme.test") ? true : undefined));
    const encoded = Buffer.from(`x-access-token:${CANARY_TOKEN}`).toString("base64");
    for (const [where, text] of [
      ["box variables", JSON.stringify(boxEnv)],
      ["every box the driver made", JSON.stringify(world.created)],
      ["command output", outputs.join("\n")],
      ["proxy output", proxyOut],
      ["service log", world.log()],
    ] as const) {
      expect(text, where).not.toContain(CANARY_TOKEN);
      expect(text, where).not.toContain(encoded);
    }
    expect(boxEnv.BATON_CODEHOST_TOKEN).toBe(placeholder);
  });
});
