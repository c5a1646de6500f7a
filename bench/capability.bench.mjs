// Capability requests against a real `baton serve` (temporary SQLite file) on loopback, driven over HTTP the way
// the CLI's transport does:
//  1. requests recorded per second with 20 concurrent agents on one repository, half of them duplicates (exact
//     target) — baseline: GET /healthz per second with the same 20 agents, same run;
//  2. p99 request time while the model-endpoint matcher sits at its 3-second limit (it answers after 10 s) —
//     baseline: p99 with a matcher that answers at once (no merge), same run.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CAPABILITY_PATHS, HEADERS } from "../dist/src/transport/wire.js";
import { percentile, report } from "./lib.mjs";
import { sandboxHeaders, startBenchServe } from "./serve.mjs";

const AGENTS = 20;
const PER_AGENT = 25;
const tmp = mkdtempSync(join(tmpdir(), "baton-bench-capability-"));
const seed = join(tmp, "seed.json");
writeFileSync(
  seed,
  JSON.stringify({
    workspaces: [
      {
        id: "ws_acme",
        name: "Acme",
        rollout: { repositoryEnvironments: true },
        members: [{ email: "owner@acme.test", role: "owner" }],
        repositories: [{ id: "repo_api", repository: "acme/api" }],
      },
    ],
  }),
);

let matcherDelayMs = 0;
const matcher = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const timer = setTimeout(() => {
      if (!res.destroyed)
        res.writeHead(200, { "content-type": "application/json" }).end('{"requestId":null,"confidence":0}');
    }, matcherDelayMs);
    res.on("close", () => clearTimeout(timer));
  });
});
await new Promise((r) => matcher.listen(0, "127.0.0.1", r));
const matcherUrl = `http://127.0.0.1:${matcher.address().port}/match`;

const services = [];
async function startServe(name, args, env = {}) {
  const serve = await startBenchServe({ seed, args, env });
  services.push(serve);
  const { url } = serve;
  const sandbox = await serve.createSandbox({ workspaceId: "ws_acme", engagementId: `bench-${name}` });
  const headers = { ...sandboxHeaders(sandbox), "content-type": "application/json" };
  const record = async (target) => {
    const started = performance.now();
    const response = await fetch(`${serve.opsUrl}${CAPABILITY_PATHS.requests}`, {
      method: "POST",
      headers: { ...headers, [HEADERS.idempotencyKey]: randomBytes(12).toString("hex") },
      body: JSON.stringify({
        repository: "acme/api",
        capability: "other",
        target,
        reason: "bench: access needed",
      }),
    });
    await response.arrayBuffer();
    if (response.status !== 200 && response.status !== 201)
      throw new Error(`record answered ${response.status}`);
    return performance.now() - started;
  };
  return { url, record };
}

async function agents(work) {
  const started = performance.now();
  const durations = [];
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, agent) => {
      for (let i = 0; i < PER_AGENT; i++) durations.push(await work(agent, i));
    }),
  );
  return { seconds: (performance.now() - started) / 1000, durations: durations.sort((a, b) => a - b) };
}

try {
  // 1. Throughput with the built-in matcher. Even agents repeat one shared target (exact duplicates).
  const plain = await startServe("throughput", []);
  await plain.record("shared resource");
  const health = await agents(async () => {
    const started = performance.now();
    await (await fetch(`${plain.url}/healthz`)).arrayBuffer();
    return performance.now() - started;
  });
  const recorded = await agents((agent, i) =>
    plain.record(agent % 2 === 0 ? "shared resource" : `resource ${agent}-${i}`),
  );
  const total = AGENTS * PER_AGENT;
  const healthRate = total / health.seconds;
  const rate = total / recorded.seconds;
  report(`GET /healthz per second (${AGENTS} concurrent agents)`, healthRate, "req/s");
  report(`capability requests recorded per second (${AGENTS} agents, half duplicates)`, rate, "req/s", {
    label: "healthz rate",
    value: healthRate,
  });
  report("  request time p99", percentile(recorded.durations, 99), "ms");

  // 2. p99 with the matcher at its 3-second limit vs. one answering at once. Unique targets, so every request
  //    consults the matcher (one existing request is always a candidate).
  const slow = await startServe("matcher", ["--matcher-url", matcherUrl], {
    BATON_MATCHER_TOKEN: "bench-matcher-token",
  });
  await slow.record("seed target");
  const rounds = (tag) => agents((agent, i) => slow.record(`${tag} ${agent}-${i}`));
  matcherDelayMs = 0;
  const fast = await rounds("fast");
  matcherDelayMs = 10_000;
  const limited = await rounds("limited");
  const fastP99 = percentile(fast.durations, 99);
  report(`request p99, matcher answering at once (${AGENTS}x${PER_AGENT})`, fastP99, "ms");
  report(
    `request p99, matcher at its 3 s limit (${AGENTS}x${PER_AGENT})`,
    percentile(limited.durations, 99),
    "ms",
    {
      label: "instant-matcher p99",
      value: fastP99,
    },
  );
  report("  with the matcher at its limit: median", percentile(limited.durations, 50), "ms");
} finally {
  await Promise.all(services.map((serve) => serve.stop()));
  matcher.closeAllConnections();
  matcher.close();
  rmSync(tmp, { recursive: true, force: true });
}
