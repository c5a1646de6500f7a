// `baton serve` throughput: activations per second with 50 concurrent clients, each with its own engagement and
// sandbox (so the per-engagement serial queue never makes one client wait for another), over loopback HTTP
// against a real service (its own process) on a temporary SQLite file with synchronous=FULL. One activation is
// what `baton env activate` sends: POST /ops/v1/operations, long-poll GET until the state is terminal (skipped
// when the POST already answers with a terminal operation), then GET .../overlay. Baseline measured in the same
// run with the same clients: GET /healthz per second (the HTTP + handler floor), and `baton --version` per second
// (the CLI's cold start, which issue 3 asks for). The clients share one
// keep-alive http.Agent, so connection set-up and the load generator are not what is measured; each phase runs
// for a fixed time after a warm-up and the two phases alternate, so both see the same machine state.
import { execFile } from "node:child_process";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { HEADERS, PATHS, QUERY } from "../dist/src/transport/wire.js";
import { median, report, timeRuns } from "./lib.mjs";
import { bin, root, sandboxHeaders, startBenchServe } from "./serve.mjs";

const CLIENTS = 50;
const PHASE_MS = Number(process.env.BATON_BENCH_PHASE_MS ?? 2000);
const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 5);
const TERMINAL = new Set(["succeeded", "failed"]);

const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });

/** One HTTP request on the shared keep-alive agent; resolves with the status and the parsed JSON body. */
function send(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      {
        agent,
        method,
        headers: payload
          ? { ...headers, "content-type": "application/json", "content-length": payload.length }
          : headers,
      },
      (res) => {
        const chunks = [];
        res.on("data", (chunk) => chunks.push(chunk));
        res.on("end", () => {
          try {
            resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** Runs `work` in a loop on every client for `ms`; returns completed units per second. */
async function throughput(clients, ms, work) {
  let done = 0;
  const start = performance.now();
  const deadline = start + ms;
  await Promise.all(
    clients.map(async (client, i) => {
      for (let n = 0; performance.now() < deadline; n++) {
        await work(client, i, n);
        done++;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

const serve = await startBenchServe({ seed: join(root, "fixtures", "server", "seed.json") });

try {
  const { url } = serve;
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) =>
      sandboxHeaders(await serve.createSandbox({ workspaceId: "ws_acme", engagementId: `bench-${i}` })),
    ),
  );

  let keys = 0;
  const activate = async (headers, i, n) => {
    const repository = n % 2 ? "acme/web" : "acme/api";
    const created = await send(`${url}${PATHS.operations}`, {
      method: "POST",
      headers: { ...headers, [HEADERS.idempotencyKey]: `bench-${i}-${keys++}` },
      body: { kind: "env.activate", repository },
    });
    if (created.status !== 202) throw new Error(`POST answered ${created.status}`);
    let op = created.body;
    for (let polls = 0; !TERMINAL.has(op.state); polls++) {
      if (polls > 100) throw new Error(`activation ${op.id} still ${op.state}`);
      op = (await send(`${url}${PATHS.operation(op.id)}?${QUERY.waitMs}=10000`, { headers })).body;
    }
    if (op.state !== "succeeded") throw new Error(`activation ${op.id} ended ${op.state}`);
    const overlay = await send(`${url}${PATHS.operationOverlay(op.id)}`, { headers });
    if (overlay.status !== 200 || overlay.body.repositories.length === 0)
      throw new Error(`overlay answered ${overlay.status}`);
  };
  const health = async () => {
    const answer = await send(`${url}/healthz`);
    if (answer.status !== 200) throw new Error(`/healthz answered ${answer.status}`);
  };

  // Warm-up (not counted): JIT, SQLite page cache, one open connection per client.
  await throughput(clients, 1000, activate);
  await throughput(clients, 500, health);

  const activations = [];
  const healths = [];
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const a = await throughput(clients, PHASE_MS, activate);
    const h = await throughput(clients, PHASE_MS, health);
    activations.push(a);
    healths.push(h);
    ratios.push(a / h);
  }
  const sorted = (values) => [...values].sort((x, y) => x - y);
  const range = (values) =>
    `${ROUNDS} rounds of ${PHASE_MS / 1000} s: ${sorted(values)
      .map((v) => (v < 10 ? v.toFixed(2) : v.toFixed(0)))
      .join(", ")}`;
  console.log(`activations per s, ${range(activations)}`);
  console.log(`/healthz per s,    ${range(healths)}`);
  console.log(`ratio per round,   ${range(ratios)}`);
  const versionMs = median(
    await timeRuns(() => promisify(execFile)(process.execPath, [bin, "--version"]), { runs: 20, warmup: 2 }),
  );
  const healthMedian = median(sorted(healths));
  const activationMedian = median(sorted(activations));
  report(`GET /healthz per second (${CLIENTS} keep-alive clients)`, healthMedian, "req/s");
  report("baton --version per second (sequential cold starts)", 1000 / versionMs, "runs/s");
  report(`activations per second (${CLIENTS} clients, own engagements)`, activationMedian, "ops/s", {
    label: "GET /healthz per s",
    value: healthMedian,
  });
  report("activations per second vs CLI cold start", activationMedian, "ops/s", {
    label: "baton --version per s",
    value: 1000 / versionMs,
  });
} finally {
  agent.destroy();
  await serve.stop();
}
