// `baton proxy` overhead against direct, all in one run. The upstream is a Node server in a network namespace
// made for the run (the proxy never dials loopback); the proxy runs in its own process; load comes from wrk.
//   http    absolute-form HTTP, small and 64 KiB answers: requests/s and p50/p99, proxied vs direct (wrk)
//   trips   absolute-form round trips on one keep-alive connection, proxied vs direct
//   tunnel  CONNECT tunnel: bulk MB/s and small round trips through an opaque tunnel vs a direct connection
//   mitm    the placeholder path (TLS terminated with the proxy's CA, a placeholder swapped) vs direct TLS
// Every measure runs PROXY_BENCH_ROUNDS times (default 3), direct and proxied alternating, after a warm-up of each
// path, so a machine whose load moves shows as a range of ratios rather than one lucky or unlucky figure. The CPU
// each process used comes from /proc, so "who is the bottleneck" can be read off the same run.
// PROXY_BENCH_ONLY=http,trips,tunnel,mitm picks sections; BATON_NETNS_PREFIX names the namespace.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const ROUNDS = Number(process.env.PROXY_BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.PROXY_BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.PROXY_BENCH_CONNECTIONS ?? 50);
const BULK_BYTES = Number(process.env.PROXY_BENCH_BULK_MIB ?? 128) * 1024 * 1024;
const ROUND_TRIPS = Number(process.env.PROXY_BENCH_TRIPS ?? 1500);
const WARM_TRIPS = 1500;
const ONLY = new Set((process.env.PROXY_BENCH_ONLY ?? "http,trips,tunnel,mitm").split(","));
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
      if (parsed.ready || parsed.port) resolve({ ...parsed, pid: child.pid });
    });
  });
}

/** CPU milliseconds (user + system) a process has used so far. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
}
const selfCpuMs = () => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

/** Runs `work` and says how much CPU the upstream, the proxy and this process (the client) used meanwhile. */
async function measured(pids, work) {
  const before = [cpuMs(pids.upstream), cpuMs(pids.proxy), selfCpuMs()];
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  const used = [cpuMs(pids.upstream) - before[0], cpuMs(pids.proxy) - before[1], selfCpuMs() - before[2]];
  return { ...result, ms, cpu: { upstream: used[0], proxy: used[1], client: used[2] } };
}

function wrk(url, headers = {}, path, seconds = SECONDS) {
  const script = join(dir, `wrk-${randomBytes(4).toString("hex")}.lua`);
  const lines = Object.entries(headers).map(
    ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
  );
  if (path) lines.push(`wrk.path = ${JSON.stringify(path)}`);
  writeFileSync(script, `${lines.join("\n")}\n`);
  const out = execFileSync(
    "wrk",
    ["-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-s", script, url],
    { encoding: "utf8" },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const requests = Number(/(\d+) requests in/.exec(out)[1]);
  const latency = (p) => {
    const [, n, unit] = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    return Number(n) * { us: 0.001, ms: 1, s: 1000 }[unit];
  };
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors:\n${out}`);
  return { rps, requests, p50: latency(50), p99: latency(99) };
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

function connectTo(host, port) {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true }, () => resolve(socket));
    socket.once("error", reject);
  });
}

async function bulk(socket) {
  let got = 0;
  socket.write(`${BULK_BYTES}\n`);
  await new Promise((resolve) => {
    socket.on("data", (chunk) => {
      got += chunk.length;
    });
    socket.once("end", resolve);
  });
  if (got !== BULK_BYTES) throw new Error(`got ${got} of ${BULK_BYTES} bytes`);
  return { bytes: got };
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

const range = (values, digits = 2) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length > 1
    ? `${sorted[0].toFixed(digits)}–${sorted.at(-1).toFixed(digits)}`
    : sorted[0].toFixed(digits);
};

/**
 * Runs `direct` and `proxied` ROUNDS times, alternating, and reports the medians of `figure` with the range of
 * the per-round ratios. Each returns an object with the figure and the CPU used.
 */
async function alternate(label, unit, figure, direct, proxied, { higherIsBetter = true, extra } = {}) {
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push({ direct: await direct(), proxied: await proxied() });
  const d = median(rounds.map((r) => figure(r.direct)).sort((a, b) => a - b));
  const p = median(rounds.map((r) => figure(r.proxied)).sort((a, b) => a - b));
  const ratios = rounds.map((r) => figure(r.proxied) / figure(r.direct));
  report(`  ${label}: direct (median of ${ROUNDS})`, d, unit);
  report(`  ${label}: proxied (median of ${ROUNDS})`, p, unit, { label: "direct", value: d });
  console.log(
    `  ${label}: ${higherIsBetter ? "proxied/direct" : "proxied/direct (lower is better)"} per round ${range(ratios)}` +
      (unit === "ms"
        ? `; added ${range(
            rounds.map((r) => figure(r.proxied) - figure(r.direct)),
            3,
          )} ms`
        : ""),
  );
  if (extra) console.log(`  ${label}: ${extra(rounds)}`);
  return rounds;
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
  // `ip netns exec` execs the command, so the child's pid is the upstream's.
  const { pid: upstreamPid } = await start("ip", [
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
  const { port, pid: proxyPid } = await start(process.execPath, [
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
  const pids = { upstream: upstreamPid, proxy: proxyPid };
  const proxyUrl = `http://127.0.0.1:${port}`;
  const proxyAuth = `Basic ${Buffer.from(`baton:${lease}`).toString("base64")}`;
  const perRequest = (rounds, count) =>
    `proxy CPU per request ${range(
      rounds.map((r) => (r.proxied.cpu.proxy * 1000) / count(r.proxied)),
      0,
    )} us`;

  if (ONLY.has("http")) {
    console.log(`HTTP through the proxy vs direct (wrk, ${CONNECTIONS} connections, ${SECONDS} s per run)`);
    for (const [label, path] of [
      ["small answer", "/small"],
      ["64 KiB answer", "/big?bytes=65536"],
    ]) {
      const direct = () => measured(pids, async () => wrk(`http://${upstream}${path}`));
      const proxied = () =>
        measured(pids, async () =>
          wrk(proxyUrl, { "Proxy-Authorization": proxyAuth, Host: upstream }, `http://${upstream}${path}`),
        );
      // Warm-up: the JIT has compiled both paths before anything is measured.
      wrk(`http://${upstream}${path}`, {}, undefined, 1);
      wrk(proxyUrl, { "Proxy-Authorization": proxyAuth, Host: upstream }, `http://${upstream}${path}`, 1);
      const rounds = await alternate(`${label} requests/s`, "req/s", (r) => r.rps, direct, proxied, {
        extra: (all) =>
          `${perRequest(all, (r) => r.requests)}; upstream CPU per request direct ${range(
            all.map((r) => (r.direct.cpu.upstream * 1000) / r.direct.requests),
            0,
          )} us`,
      });
      const p50 = (side) => median(rounds.map((r) => r[side].p50).sort((a, b) => a - b));
      const p99 = (side) => median(rounds.map((r) => r[side].p99).sort((a, b) => a - b));
      report(
        `  ${label} p50: direct / proxied (added ${(p50("proxied") - p50("direct")).toFixed(2)} ms)`,
        p50("proxied"),
        "ms",
        { label: "direct", value: p50("direct") },
      );
      report(
        `  ${label} p99: direct / proxied (added ${(p99("proxied") - p99("direct")).toFixed(2)} ms)`,
        p99("proxied"),
        "ms",
        { label: "direct", value: p99("direct") },
      );
    }
  }

  const small = `GET /small HTTP/1.1\r\nHost: ${upstream}\r\n\r\n`;
  const absolute = `GET http://${upstream}/small HTTP/1.1\r\nHost: ${upstream}\r\nProxy-Authorization: ${proxyAuth}\r\n\r\n`;
  const tripsOn = async (socket, request) => {
    await roundTrips(socket, request, WARM_TRIPS);
    return await measured(pids, async () => ({ times: await roundTrips(socket, request, ROUND_TRIPS) }));
  };
  const tripRounds = async (label, direct, proxied) => {
    const rounds = await alternate(`${label} round trip p50`, "ms", (r) => median(r.times), direct, proxied, {
      higherIsBetter: false,
      extra: (all) => perRequest(all, () => ROUND_TRIPS),
    });
    const p99 = (side) => median(rounds.map((r) => percentile(r[side].times, 99)).sort((a, b) => a - b));
    report(`  ${label} round trip p99: proxied`, p99("proxied"), "ms", {
      label: "direct",
      value: p99("direct"),
    });
  };

  if (ONLY.has("trips")) {
    console.log(
      `Absolute-form round trips on one keep-alive connection (${ROUND_TRIPS} per round, after ${WARM_TRIPS} to warm up)`,
    );
    await tripRounds(
      "absolute-form",
      async () => tripsOn(await connectTo(upstream, 80), small),
      async () => tripsOn(await connectTo("127.0.0.1", port), absolute),
    );
  }

  if (ONLY.has("tunnel")) {
    console.log(
      `CONNECT tunnel vs direct TCP (${BULK_BYTES / 1024 / 1024} MiB per transfer, same generator)`,
    );
    const bulkOver = async (open) => {
      const socket = await open();
      return measured(pids, () => bulk(socket));
    };
    // One of each to warm up.
    await bulk(await connectTo(upstream, 9000));
    await bulk(await openTunnel(port, `${upstream}:9000`, lease));
    const mbs = (r) => r.bytes / 1e6 / (r.ms / 1000);
    await alternate(
      "bulk transfer",
      "MB/s",
      mbs,
      () => bulkOver(() => connectTo(upstream, 9000)),
      () => bulkOver(() => openTunnel(port, `${upstream}:9000`, lease)),
      {
        extra: (all) => {
          const pct = (r, who) => `${Math.round((100 * r.cpu[who]) / r.ms)}%`;
          const perGb = all.map((r) => r.proxied.cpu.proxy / (r.proxied.bytes / 1e9));
          return (
            `CPU (upstream/proxy/reader) direct ${all.map((r) => `${pct(r.direct, "upstream")}/-/${pct(r.direct, "client")}`).join(" ")}` +
            `; tunnel ${all.map((r) => `${pct(r.proxied, "upstream")}/${pct(r.proxied, "proxy")}/${pct(r.proxied, "client")}`).join(" ")}` +
            `; proxy CPU ${range(perGb, 0)} ms per GB`
          );
        },
      },
    );
    await tripRounds(
      "opaque tunnel",
      async () => tripsOn(await connectTo(upstream, 80), small),
      async () => tripsOn(await openTunnel(port, `${upstream}:80`, lease), small),
    );
  }

  if (ONLY.has("mitm")) {
    console.log(
      "The placeholder path (TLS terminated, Bearer placeholder swapped, answer scrubbed) vs direct TLS",
    );
    const tlsOver = (socket, ca) =>
      new Promise((resolve, reject) => {
        const secure = tlsConnect({ socket, servername: "api.bench.test", ca: [ca] }, () => resolve(secure));
        secure.once("error", reject);
      });
    const proxyCa = readFileSync(join(dir, "proxy-state", "ca.pem"), "utf8");
    const withSecret = `GET /small HTTP/1.1\r\nHost: api.bench.test\r\nAuthorization: Bearer baton-secret-${secretId}\r\n\r\n`;
    await tripRounds(
      "placeholder path",
      async () => tripsOn(await tlsOver(await connectTo(upstream, 443), upstreamCa.certPem), withSecret),
      async () =>
        tripsOn(await tlsOver(await openTunnel(port, "api.bench.test:443", lease), proxyCa), withSecret),
    );
  }
} finally {
  cleanup();
}
process.exit(0);
