// `baton proxy` overhead against direct, all in one run. The upstream is a Node server in a network namespace
// made for the run (the proxy never dials loopback); the proxy runs in its own process; load comes from wrk.
//   1. absolute-form HTTP, small and 64 KiB answers: requests/s and p50/p99 latency, proxied vs direct
//   2. CONNECT tunnel bulk transfer: MB/s through an opaque tunnel vs a direct connection
//   3. CONNECT tunnel round trips: p50/p99 of a small request/answer over an open tunnel vs direct
//   4. the placeholder path (TLS terminated with the proxy's CA, a placeholder swapped) vs direct TLS, reported
//      separately
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { connect as tlsConnect } from "node:tls";
import { generateCa } from "../dist/src/proxy/ca/authority.js";
import { issueLeafPem } from "../dist/src/proxy/ca/leaves.js";
import { median, percentile, report } from "./lib.mjs";
import { root } from "./serve.mjs";

const SECONDS = Number(process.env.PROXY_BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.PROXY_BENCH_CONNECTIONS ?? 50);
const BULK_BYTES = 512 * 1024 * 1024;
const ROUND_TRIPS = 3000;
const ip = (...args) => execFileSync("ip", args);

const id = randomBytes(3).toString("hex");
// BATON_NETNS_PREFIX (up to 8 characters) keeps engineers' runs on one machine apart.
const ns = `${process.env.BATON_NETNS_PREFIX || "proxyb"}${id}`;
const third = randomBytes(1)[0];
const gateway = `198.19.${third}.1`;
const upstream = `198.19.${third}.2`;
const dir = mkdtempSync(join(tmpdir(), "proxy-bench-"));
const children = [];
let cleaned = false;
const cleanup = () => {
  if (cleaned) return;
  cleaned = true;
  for (const child of children) child.kill(process.env.PROXY_BENCH_PROFILE ? "SIGTERM" : "SIGKILL");
  for (const args of [
    ["link", "del", `${ns}a`],
    ["netns", "del", ns],
  ]) {
    try {
      execFileSync("ip", args, { stdio: "ignore" });
    } catch {}
  }
  rmSync(dir, { recursive: true, force: true });
};
process.on("exit", cleanup);

function start(command, args) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited ${code}`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const parsed = JSON.parse(line);
      if (parsed.ready || parsed.port) resolve(parsed);
    });
  });
}

function wrk(url, headers = {}, path) {
  const script = join(dir, `wrk-${randomBytes(4).toString("hex")}.lua`);
  const lines = Object.entries(headers).map(
    ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
  );
  if (path) lines.push(`wrk.path = ${JSON.stringify(path)}`);
  writeFileSync(script, `${lines.join("\n")}\n`);
  const out = execFileSync(
    "wrk",
    ["-t1", `-c${CONNECTIONS}`, `-d${SECONDS}s`, "--latency", "-s", script, url],
    {
      encoding: "utf8",
    },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const latency = (p) => {
    const [, n, unit] = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return Number(n) * { us: 0.001, ms: 1, s: 1000 }[unit];
  };
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
  return { rps, p50: latency(50), p99: latency(99) };
}

async function openTunnel(proxyPort, authority, lease) {
  const socket = connect({ host: "127.0.0.1", port: proxyPort, noDelay: true });
  const auth = Buffer.from(`baton:${lease}`).toString("base64");
  socket.write(
    `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`,
  );
  await new Promise((resolve, reject) => {
    let head = "";
    const onData = (chunk) => {
      head += chunk.toString("latin1");
      if (!head.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      if (!head.startsWith("HTTP/1.1 200")) reject(new Error(head.split("\r\n")[0]));
      else resolve();
    };
    socket.on("data", onData);
    socket.once("error", reject);
  });
  return socket;
}

function direct(port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: upstream, port, noDelay: true }, () => resolve(socket));
    socket.once("error", reject);
  });
}

async function bulk(socket) {
  const started = performance.now();
  let got = 0;
  socket.write(`${BULK_BYTES}\n`);
  await new Promise((resolve) => {
    socket.on("data", (chunk) => {
      got += chunk.length;
    });
    socket.once("end", resolve);
  });
  if (got !== BULK_BYTES) throw new Error(`got ${got} of ${BULK_BYTES} bytes`);
  return got / 1e6 / ((performance.now() - started) / 1000);
}

/** Sequential keep-alive request/answer round trips on one connection; returns sorted durations in ms. */
async function roundTrips(socket, request, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    socket.write(request);
    await new Promise((resolve) => {
      let seen = "";
      const onData = (chunk) => {
        seen += chunk.toString("latin1");
        const end = seen.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = seen.slice(0, end);
        if (/transfer-encoding: chunked/i.test(head)) {
          if (!seen.endsWith("0\r\n\r\n")) return;
        } else {
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (seen.length - end - 4 < length) return;
        }
        socket.off("data", onData);
        resolve();
      };
      socket.on("data", onData);
    });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

try {
  ip("netns", "add", ns);
  ip("link", "add", `${ns}a`, "type", "veth", "peer", "name", `${ns}b`);
  ip("link", "set", `${ns}b`, "netns", ns);
  ip("addr", "add", `${gateway}/30`, "dev", `${ns}a`);
  ip("link", "set", `${ns}a`, "up");
  ip("netns", "exec", ns, "ip", "addr", "add", `${upstream}/30`, "dev", `${ns}b`);
  ip("netns", "exec", ns, "ip", "link", "set", `${ns}b`, "up");
  ip("netns", "exec", ns, "ip", "link", "set", "lo", "up");

  const upstreamCa = await generateCa();
  writeFileSync(join(dir, "upstream-ca.pem"), upstreamCa.certPem);
  const leaf = await issueLeafPem(upstreamCa, ["api.bench.test"]);
  writeFileSync(join(dir, "upstream.pem"), leaf.certPem);
  writeFileSync(join(dir, "upstream-key.pem"), leaf.keyPem);
  const upstreamScript = join(root, "test", "helpers", "proxy-upstream.mjs");
  await start("ip", [
    "netns",
    "exec",
    ns,
    process.execPath,
    upstreamScript,
    "--cert",
    join(dir, "upstream.pem"),
    "--key",
    join(dir, "upstream-key.pem"),
    "--stream-port",
    "9000",
    "--quiet",
  ]);
  const lease = `btl_${randomBytes(16).toString("hex")}`;
  const secretId = `sec_${randomBytes(16).toString("hex")}`;
  const value = `bench-value-${randomBytes(8).toString("hex")}`;
  const { port } = await start(process.execPath, [
    ...(process.env.PROXY_BENCH_PROFILE
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.PROXY_BENCH_PROFILE}`]
      : []),
    join(root, "bench", "proxy-server.mjs"),
    upstream,
    dir,
    lease,
    secretId,
    value,
  ]);
  const proxyUrl = `http://127.0.0.1:${port}`;
  const proxyAuth = `Basic ${Buffer.from(`baton:${lease}`).toString("base64")}`;

  console.log(`HTTP through the proxy vs direct (wrk, ${CONNECTIONS} connections, ${SECONDS} s each)`);
  for (const [label, path] of [
    ["small answer", "/small"],
    ["64 KiB answer", "/big?bytes=65536"],
  ]) {
    const base = wrk(`http://${upstream}${path}`);
    const via = wrk(
      proxyUrl,
      { "Proxy-Authorization": proxyAuth, Host: upstream },
      `http://${upstream}${path}`,
    );
    report(`  ${label}: direct requests/s`, base.rps, "req/s");
    report(`  ${label}: proxied requests/s`, via.rps, "req/s", { label: "direct", value: base.rps });
    report(`  ${label}: direct p50 / p99`, base.p50, "ms");
    report(`  ${label}: proxied p50 (added ${(via.p50 - base.p50).toFixed(2)} ms)`, via.p50, "ms", {
      label: "direct",
      value: base.p50,
    });
    report(`  ${label}: proxied p99 (added ${(via.p99 - base.p99).toFixed(2)} ms)`, via.p99, "ms", {
      label: "direct",
      value: base.p99,
    });
  }

  console.log(`Absolute-form round trips on one keep-alive connection (${ROUND_TRIPS}), proxied vs direct`);
  const toProxy = () =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port, noDelay: true }, () => resolve(socket));
      socket.once("error", reject);
    });
  const plainDirect = await roundTrips(
    await direct(80),
    `GET /small HTTP/1.1\r\nHost: ${upstream}\r\n\r\n`,
    ROUND_TRIPS,
  );
  const plainProxied = await roundTrips(
    await toProxy(),
    `GET http://${upstream}/small HTTP/1.1\r\nHost: ${upstream}\r\nProxy-Authorization: ${proxyAuth}\r\n\r\n`,
    ROUND_TRIPS,
  );
  report("  round trip p50: direct", median(plainDirect), "ms");
  report(
    `  round trip p50: proxied (added ${(median(plainProxied) - median(plainDirect)).toFixed(3)} ms)`,
    median(plainProxied),
    "ms",
    { label: "direct", value: median(plainDirect) },
  );
  report(
    `  round trip p99: proxied (added ${(percentile(plainProxied, 99) - percentile(plainDirect, 99)).toFixed(3)} ms)`,
    percentile(plainProxied, 99),
    "ms",
    { label: "direct", value: percentile(plainDirect, 99) },
  );

  console.log(
    `CONNECT tunnel vs direct TCP (${BULK_BYTES / 1024 / 1024} MiB, then ${ROUND_TRIPS} round trips)`,
  );
  const directMbs = await bulk(await direct(9000));
  const tunnelMbs = await bulk(await openTunnel(port, `${upstream}:9000`, lease));
  report("  bulk transfer: direct", directMbs, "MB/s");
  report("  bulk transfer: through a tunnel", tunnelMbs, "MB/s", { label: "direct", value: directMbs });
  const small = `GET /small HTTP/1.1\r\nHost: ${upstream}\r\n\r\n`;
  const directTrips = await roundTrips(await direct(80), small, ROUND_TRIPS);
  const tunnelTrips = await roundTrips(await openTunnel(port, `${upstream}:80`, lease), small, ROUND_TRIPS);
  report("  round trip p50: direct", median(directTrips), "ms");
  report(
    `  round trip p50: tunnel (added ${(median(tunnelTrips) - median(directTrips)).toFixed(3)} ms)`,
    median(tunnelTrips),
    "ms",
    { label: "direct", value: median(directTrips) },
  );
  report("  round trip p99: direct", percentile(directTrips, 99), "ms");
  report(
    `  round trip p99: tunnel (added ${(percentile(tunnelTrips, 99) - percentile(directTrips, 99)).toFixed(3)} ms)`,
    percentile(tunnelTrips, 99),
    "ms",
    { label: "direct", value: percentile(directTrips, 99) },
  );

  console.log(
    `The placeholder path (TLS terminated, Bearer placeholder swapped) vs direct TLS, ${ROUND_TRIPS} round trips`,
  );
  const tlsOver = (socket) =>
    new Promise((resolve, reject) => {
      const secure = tlsConnect({ socket, servername: "api.bench.test", ca: [upstreamCa.certPem] }, () =>
        resolve(secure),
      );
      secure.once("error", reject);
    });
  const tlsThroughProxy = (socket, ca) =>
    new Promise((resolve, reject) => {
      const secure = tlsConnect({ socket, servername: "api.bench.test", ca: [ca] }, () => resolve(secure));
      secure.once("error", reject);
    });
  const { readFileSync } = await import("node:fs");
  const proxyCa = readFileSync(join(dir, "proxy-state", "ca.pem"), "utf8");
  const withSecret = `GET /small HTTP/1.1\r\nHost: api.bench.test\r\nAuthorization: Bearer baton-secret-${secretId}\r\n\r\n`;
  const directTls = await roundTrips(await tlsOver(await direct(443)), withSecret, ROUND_TRIPS);
  const mitm = await roundTrips(
    await tlsThroughProxy(await openTunnel(port, "api.bench.test:443", lease), proxyCa),
    withSecret,
    ROUND_TRIPS,
  );
  report("  round trip p50: direct TLS", median(directTls), "ms");
  report("  round trip p50: placeholder path", median(mitm), "ms", {
    label: "direct",
    value: median(directTls),
  });
  report("  round trip p99: direct TLS", percentile(directTls, 99), "ms");
  report("  round trip p99: placeholder path", percentile(mitm, 99), "ms", {
    label: "direct",
    value: percentile(directTls, 99),
  });
  console.log(
    `  placeholder path requests/s (one connection): ${(1000 / median(mitm)).toFixed(0)} vs direct TLS ${(1000 / median(directTls)).toFixed(0)}`,
  );
} finally {
  cleanup();
}
process.exit(0);
