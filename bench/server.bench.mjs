// `baton serve` throughput: activations per second with 50 concurrent clients, each with its own engagement and
// sandbox (so the per-engagement serial queue never makes one client wait for another), over loopback HTTP
// against a real service on a temporary SQLite file. One activation = POST /ops/v1/operations, then long-poll
// GET until `succeeded`. Baselines measured in the same run: GET /healthz per second with the same 50 clients
// (the HTTP + handler floor) and `baton --version` per second (the CLI's cold start, as issue 3 asks).
import { execFile } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { HEADERS, PATHS, QUERY } from "../dist/src/transport/wire.js";
import { median, report, timeRuns } from "./lib.mjs";
import { bin, root, sandboxHeaders, startBenchServe } from "./serve.mjs";

const CLIENTS = 50;
const PER_CLIENT = 10;
const HEALTH_PER_CLIENT = 100;
const run = promisify(execFile);

const serve = await startBenchServe({ seed: join(root, "fixtures", "server", "seed.json") });

try {
  const { url } = serve;
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) =>
      sandboxHeaders(await serve.createSandbox({ workspaceId: "ws_acme", engagementId: `bench-${i}` })),
    ),
  );

  const activate = async (headers, repository, key) => {
    const created = await fetch(`${url}${PATHS.operations}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", [HEADERS.idempotencyKey]: key },
      body: JSON.stringify({ kind: "env.activate", repository }),
    });
    let op = await created.json();
    for (let polls = 0; op.state !== "succeeded"; polls++) {
      if (op.state === "failed" || polls > 100) throw new Error(`activation ${op.id} ended ${op.state}`);
      op = await (await fetch(`${url}${PATHS.operation(op.id)}?${QUERY.waitMs}=10000`, { headers })).json();
    }
  };

  // Warm-up: one activation per client, not timed.
  await Promise.all(clients.map((headers, i) => activate(headers, "acme/api", `warm-${i}`)));

  let start = performance.now();
  await Promise.all(
    clients.map(async (headers, i) => {
      for (let n = 0; n < PER_CLIENT; n++)
        await activate(headers, n % 2 ? "acme/web" : "acme/api", `bench-${i}-${n}`);
    }),
  );
  const activationsPerSecond = (CLIENTS * PER_CLIENT) / ((performance.now() - start) / 1000);

  start = performance.now();
  await Promise.all(
    clients.map(async () => {
      for (let n = 0; n < HEALTH_PER_CLIENT; n++) await (await fetch(`${url}/healthz`)).arrayBuffer();
    }),
  );
  const healthPerSecond = (CLIENTS * HEALTH_PER_CLIENT) / ((performance.now() - start) / 1000);

  const versionMs = median(
    await timeRuns(() => run(process.execPath, [bin, "--version"]), { runs: 20, warmup: 2 }),
  );
  const versionPerSecond = 1000 / versionMs;

  const health = { label: "GET /healthz per s", value: healthPerSecond };
  const version = { label: "baton --version per s", value: versionPerSecond };
  report(`GET /healthz per second (${CLIENTS} concurrent clients)`, healthPerSecond, "req/s");
  report("baton --version per second (sequential cold starts)", versionPerSecond, "runs/s");
  report(
    `activations per second (${CLIENTS} clients, own engagements)`,
    activationsPerSecond,
    "ops/s",
    health,
  );
  report(`activations per second vs CLI cold start`, activationsPerSecond, "ops/s", version);
} finally {
  await serve.stop();
}
