// Issue 21 point 13: clients that connect and never read nor close must not pin the file handles of a real
// `baton proxy` process. After the header time-out the proxy answers 408 and ends the connection; a client that
// never reads never closes its side either, so the proxy destroys the socket after `timeouts.closeGraceMs`, and
// connections past `limits.maxConnections` are refused at once. The proxy's handles are counted in
// /proc/<pid>/fd of the child process. Everything is on loopback; no lease is ever looked up, so the
// `--serve-url` points at a closed port.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { get } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";
import { eventually } from "./harness.js";

const FLOOD = 5_000;
const PROXY_TOKEN = "test-proxy-token-connections-0123456789";

let dir = "";
let proxy: ChildProcess;
let port = 0;
let output = "";
const clients: Socket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "proxy-connections-"));
  const config = join(dir, "proxy.json");
  // A short grace keeps the test quick; the header time-out leaves time to open the whole flood, and the total cap
  // is below the flood, so it meets both the time-out and the cap.
  await writeFile(
    config,
    JSON.stringify({ timeouts: { headersMs: 5_000, closeGraceMs: 500 }, limits: { maxConnections: 3_000 } }),
  );
  proxy = spawn(
    process.execPath,
    [
      BATON_BIN,
      "proxy",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--serve-url",
      "http://127.0.0.1:9",
      "--config",
      config,
      "--state-dir",
      join(dir, "state"),
      "--audit-file",
      join(dir, "audit.log"),
      "--json",
    ],
    { env: { ...process.env, BATON_PROXY_TOKEN: PROXY_TOKEN }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  proxy.stdout!.on("data", collect);
  proxy.stderr!.on("data", collect);
  const line = await eventually(() => output.split("\n").find((l) => l.startsWith("{")), 30_000);
  port = Number(new URL((JSON.parse(line) as { url: string }).url).port);
}, 60_000);

afterAll(async () => {
  for (const socket of clients) socket.destroy();
  proxy?.kill("SIGKILL");
  if (dir) await rm(dir, { recursive: true, force: true });
});

const handles = async () => (await readdir(`/proc/${proxy.pid}/fd`)).length;

/** GET /healthz on a connection of its own that is closed after the answer (no keep-alive handle left). */
function health(): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port, path: "/healthz", agent: false }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
    }).once("error", reject);
  });
}

/** Opens one connection that never reads (its receive side is paused at once) and never closes. */
function openSilent(index: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.pause();
    socket.on("error", () => {});
    socket.once("connect", () => {
      // Half of them start a request and stop (slowloris); half send nothing at all.
      if (index % 2 === 0) socket.write("GET http://example.test/ HTTP/1.1\r\nHost: exam");
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

describe("connections that never read", () => {
  it(`${FLOOD} of them leave the proxy's handle count back at its baseline, the clients still open`, async () => {
    // The proxy has answered nothing yet; a health check first so whatever it opens lazily is open already.
    expect(await health()).toBe(200);
    const baseline = await eventually(async () => {
      const first = await handles();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return first === (await handles()) ? first : undefined;
    });
    // All 5,000 sockets live in this test process: its open-file limit here is 20,000 (Node raises the soft
    // limit to the hard one), so no helper process is needed. Opened 250 at a time: a bounded loop that does
    // not outrun the listen backlog.
    let peak = baseline;
    for (let start = 0; start < FLOOD; start += 250) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(250, FLOOD - start) }, (_, i) => openSilent(start + i)),
      );
      clients.push(...batch);
      peak = Math.max(peak, await handles());
    }
    expect(clients.length).toBe(FLOOD);
    // The flood did reach the proxy: it held more than a thousand extra handles at some point.
    expect(peak).toBeGreaterThan(baseline + 1_000);
    // headersMs (5 s) + the server's check interval + closeGraceMs (0.5 s), on a loaded machine: a wide deadline.
    const settled = await eventually(async () => {
      const now = await handles();
      return now <= baseline ? now : undefined;
    }, 90_000).catch(async () => handles());
    expect(settled).toBeLessThanOrEqual(baseline);
    // Not one client closed its side: the proxy let go on its own.
    expect(clients.every((socket) => !socket.destroyed)).toBe(true);
    // The ones over the cap were refused with their own code, and each refusal has an audit line.
    const audit = await eventually(async () => {
      const text = await readFile(join(dir, "audit.log"), "utf8").catch(() => "");
      return text.includes("connection_limit") ? text : undefined;
    });
    const refusals = audit
      .split("\n")
      .filter((l) => l.includes('"connection_limit"'))
      .map((l) => (JSON.parse(l) as { audit: Record<string, unknown> }).audit);
    expect(refusals.length).toBeGreaterThan(0);
    // About 2,000 were refused, at most one line a second: the flood cannot fill the audit log.
    expect(refusals.length).toBeLessThan(100);
    expect(refusals[0]).toMatchObject({ kind: "connection", decision: "error", status: 503 });
    // The proxy still serves.
    expect(await health()).toBe(200);
  }, 180_000);
});

describe("outbound mail ports (issue 21 point 16)", () => {
  it("baton proxy check refuses 25, 465 and 587 by default; --allow-smtp or allowSmtp in the config opens them", async () => {
    const open = join(dir, "smtp.json");
    await writeFile(open, JSON.stringify({ allowSmtp: true }));
    for (const target of ["93.184.1.1:25", "93.184.1.1:465", "93.184.1.1:587"]) {
      const denied = await runBaton(["proxy", "check", target, "--json"]);
      expect(denied.exitCode).toBe(1);
      expect(JSON.parse(denied.stdout)).toMatchObject({
        decision: "deny",
        rule: "smtp",
        error: "smtp_denied",
      });
      const flag = await runBaton(["proxy", "check", target, "--allow-smtp", "--json"]);
      expect(JSON.parse(flag.stdout)).toMatchObject({ decision: "allow", rule: "global" });
      const config = await runBaton(["proxy", "check", target, "--config", open, "--json"]);
      expect(JSON.parse(config.stdout)).toMatchObject({ decision: "allow", rule: "global" });
    }
  });
});
