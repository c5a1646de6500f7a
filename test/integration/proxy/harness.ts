// One proxy world per suite: an upstream test host and a sandbox, each in its own network namespace; a stub DNS
// server on loopback; the real proxy (in this process, on the sandbox link) with an in-process lease source whose
// one secret is approved for https://api.acme.test. A mock is used for nothing but the lease source (the suite
// with `baton serve` covers the real one): everything else is real sockets, real TLS and real curl.
import { type ChildProcess, execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { pino } from "pino";
import type { AuditRecord } from "../../../src/proxy/audit.js";
import { generateCa, loadOrCreateCa } from "../../../src/proxy/ca/authority.js";
import { createLeafIssuer, issueLeafPem } from "../../../src/proxy/ca/leaves.js";
import {
  createMemoryRefusalSink,
  createOwnAddresses,
  createProxy,
  createServerResolver,
  createStaticLeaseSource,
  type EgressProxy,
  type LeasePolicy,
  ProxyConfigSchema,
  toLeasePolicy,
} from "../../../src/proxy/index.js";
import { upstreamTrust } from "../../../src/proxy/load-config.js";
import { createNetnsHost, type NetnsHost } from "../../../src/testing/netns.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { type StubDns, startStubDns } from "../../helpers/stub-dns.js";

const run = promisify(execFile);

export const SECRET_ID = `sec_${"a1".repeat(16)}`;
export const PLACEHOLDER = `baton-secret-${SECRET_ID}`;
/** The secret's value: it may reach the approved upstream and nothing else. */
export const CANARY = "canary-proxy-7c1d9e2f-never-print";
export const LEASE = `btl_${randomBytes(16).toString("hex")}`;
export const OTHER_WORKSPACE_PLACEHOLDER = `baton-secret-sec_${"b2".repeat(16)}`;

export interface UpstreamLine {
  scheme: string;
  method: string;
  url: string;
  headers: Record<string, string>;
}

export interface ProxyWorld {
  upstream: NetnsHost;
  sandbox: NetnsHost;
  dns: StubDns;
  proxy: EgressProxy;
  /** `http://<sandbox gateway>:<port>` */
  url: string;
  port: number;
  dir: string;
  /** The proxy's own CA (what sandboxes trust). */
  proxyCaFile: string;
  /** The CA the test upstream's certificate comes from. */
  upstreamCaFile: string;
  audit: AuditRecord[];
  refusals: ReturnType<typeof createMemoryRefusalSink>;
  /** The lease's policy as the proxy's lease source holds it: a test may expire it (`expiresAtMs`). */
  lease: LeasePolicy;
  /** Everything the proxy logged, at debug level. */
  log(): string;
  received(): UpstreamLine[];
  /** curl in this namespace (or in the sandbox namespace) through the proxy with the lease. */
  curl(args: string[], options?: { inSandbox?: boolean; lease?: string | null }): Promise<CurlResult>;
  close(): Promise<void>;
}

export interface CurlResult {
  code: number;
  status: number;
  headers: string;
  body: string;
  stderr: string;
}

export async function startProxyWorld(
  extraConfig: Record<string, unknown> = {},
  lease: Partial<LeasePolicy> = {},
): Promise<ProxyWorld> {
  const cleanups: (() => Promise<void>)[] = [];
  try {
    return await buildWorld(extraConfig, lease, cleanups);
  } catch (error) {
    // A world that failed half-way leaves no namespace, process or folder behind.
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    throw error;
  }
}

export interface TestNetwork {
  dir: string;
  upstream: NetnsHost;
  sandbox: NetnsHost;
  dns: StubDns;
  upstreamCaFile: string;
  lines: UpstreamLine[];
}

/**
 * The upstream host (HTTP on 80, HTTPS on 443 with a certificate for api.acme.test, other.acme.test and
 * rebind.test from a CA only the proxy trusts), the sandbox namespace and the stub DNS server.
 */
export async function startTestNetwork(cleanups: (() => Promise<void>)[]): Promise<TestNetwork> {
  const dir = await mkdtemp(join(tmpdir(), "proxy-world-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const upstream = await createNetnsHost();
  cleanups.push(() => upstream.close());
  const sandbox = await createNetnsHost();
  cleanups.push(() => sandbox.close());
  const dns = await startStubDns({
    "api.acme.test": [upstream.address],
    "other.acme.test": [upstream.address],
    "plain.acme.test": [upstream.address],
    "private.acme.test": ["10.1.2.3"],
    "mixed.acme.test": [upstream.address, "127.0.0.1"],
  });
  cleanups.push(() => dns.close());
  // The upstream's certificate comes from a CA of its own, which only the proxy trusts (upstreamCaFile).
  const upstreamCa = await generateCa();
  const upstreamCaFile = join(dir, "upstream-ca.pem");
  await writeFile(upstreamCaFile, upstreamCa.certPem);
  const leaf = await issueLeafPem(upstreamCa, ["api.acme.test", "other.acme.test", "rebind.test"]);
  await writeFile(join(dir, "upstream.pem"), leaf.certPem);
  await writeFile(join(dir, "upstream-key.pem"), leaf.keyPem);

  const lines: UpstreamLine[] = [];
  const child = upstream.spawn(process.execPath, [
    join(PROJECT_ROOT, "test", "helpers", "proxy-upstream.mjs"),
    "--name",
    "api",
    "--cert",
    join(dir, "upstream.pem"),
    "--key",
    join(dir, "upstream-key.pem"),
  ]);
  await waitReady(child, lines);

  cleanups.push(async () => {
    child.kill("SIGKILL");
  });
  return { dir, upstream, sandbox, dns, upstreamCaFile, lines };
}

async function buildWorld(
  extraConfig: Record<string, unknown>,
  lease: Partial<LeasePolicy>,
  cleanups: (() => Promise<void>)[],
): Promise<ProxyWorld> {
  const { dir, upstream, sandbox, dns, upstreamCaFile, lines } = await startTestNetwork(cleanups);
  // The test upstream's address is opened by an operator rule, as a private host of a real operator would be.
  const { allow = [], ...rest } = extraConfig as { allow?: unknown[] };
  const config = ProxyConfigSchema.parse({
    allow: [{ name: "test-upstream", cidr: [`${upstream.address}/32`] }, ...allow],
    dns: { servers: [dns.server], timeoutMs: 2000 },
    upstreamCaFile,
    substituteHeaders: ["x-api-key"],
    ...rest,
  });
  const stateDir = join(dir, "proxy-state");
  const ca = await loadOrCreateCa(stateDir);
  const proxyCaFile = join(stateDir, "ca.pem");
  const audit: AuditRecord[] = [];
  const refusals = createMemoryRefusalSink();
  let log = "";
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) => {
        log += line;
      },
    },
  );
  const policy: LeasePolicy = {
    ...toLeasePolicy({
      sandboxId: "sbx_test",
      workspaceId: "ws_test",
      engagementId: "eng_test",
      leaseExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      secrets: [
        {
          id: SECRET_ID,
          placeholder: PLACEHOLDER,
          value: CANARY,
          destinations: ["api.acme.test", "http://plain.acme.test/v1/"],
        },
      ],
    }),
    ...lease,
  };
  const proxy = createProxy({
    config,
    leases: createStaticLeaseSource({ [LEASE]: policy }),
    resolver: createServerResolver(config.dns.servers!, config.dns.timeoutMs),
    ownAddresses: createOwnAddresses(),
    ca: { certPem: ca.certPem, leaves: createLeafIssuer(ca) },
    upstreamCa: await upstreamTrust(config),
    audit: (record) => {
      audit.push(structuredClone(record));
      logger.info({ audit: record }, "decision");
    },
    refusals,
    logger,
  });
  await new Promise<void>((resolve) => proxy.server.listen(0, sandbox.gateway, () => resolve()));
  const port = (proxy.server.address() as { port: number }).port;
  const url = `http://${sandbox.gateway}:${port}`;

  return {
    upstream,
    sandbox,
    dns,
    proxy,
    url,
    port,
    dir,
    proxyCaFile,
    upstreamCaFile,
    audit,
    refusals,
    lease: policy,
    log: () => log,
    received: () => lines,
    async curl(args, options = {}) {
      const leaseValue = options.lease === undefined ? LEASE : options.lease;
      const proxyUrl = leaseValue === null ? url : `http://baton:${leaseValue}@${sandbox.gateway}:${port}`;
      const full = ["-sS", "--max-time", "20", "-x", proxyUrl, "-D", "-", ...args];
      const result = options.inSandbox
        ? await sandbox.exec("curl", full, { timeoutMs: 30_000 })
        : await run("curl", full, { timeout: 30_000, maxBuffer: 8 * 1024 * 1024 }).then(
            (r) => ({ code: 0, ...r }),
            (e: { code?: number; stdout?: string; stderr?: string }) => ({
              code: typeof e.code === "number" ? e.code : 1,
              stdout: e.stdout ?? "",
              stderr: e.stderr ?? "",
            }),
          );
      return splitResponse(result);
    },
    async close() {
      // Whatever the drain does, the namespaces, processes and files go.
      try {
        await Promise.race([proxy.drain(0), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      } finally {
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
      }
    },
  };
}

/** Splits curl's `-D -` output: the last header block (after any CONNECT answer) and the body. */
function splitResponse(result: { code: number; stdout: string; stderr: string }): CurlResult {
  let rest = result.stdout;
  let headers = "";
  while (/^HTTP\/[0-9.]+ \d{3}/.test(rest)) {
    const end = rest.indexOf("\r\n\r\n");
    if (end === -1) break;
    headers = rest.slice(0, end);
    rest = rest.slice(end + 4);
  }
  const status = Number(/^HTTP\/[0-9.]+ (\d{3})/.exec(headers)?.[1] ?? 0);
  return { code: result.code, status, headers, body: rest, stderr: result.stderr };
}

async function waitReady(child: ChildProcess, lines: UpstreamLine[]): Promise<void> {
  const reader = createInterface({ input: child.stdout! });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the test upstream exited (${code}): ${stderr}`)));
    reader.on("line", (line) => {
      const parsed = JSON.parse(line) as UpstreamLine & { ready?: boolean };
      if (parsed.ready) resolve();
      else lines.push(parsed);
    });
  });
}

/** The value of one response header (lowercase name). */
export function header(result: CurlResult, name: string): string | undefined {
  const match = new RegExp(`^${name}: (.*)$`, "im").exec(result.headers);
  return match?.[1]?.trim();
}

/** Polls until `find` returns a value or the deadline passes (a tunnel's audit line is written when it closes). */
export async function eventually<T>(
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error("the expected condition did not come true in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
