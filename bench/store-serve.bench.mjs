// The store engines through the whole service: real `baton serve` processes over loopback HTTP, 50 clients,
// activations per second (POST /ops/v1/operations, as `baton env activate` sends it, each client its own
// engagement) and task starts per second (POST /v1/workspaces/ws_bench/tasks, rotating over 2,000 members so the
// per-person limit is not what is measured; the scripted agent answers each turn). Rows: SQLite, one instance;
// PostgreSQL, one instance; PostgreSQL, three instances on one schema, the clients spread over them round-robin.
// Baseline per row, in the same run: GET /healthz of the same instances. Issue 26's goal: PostgreSQL one
// instance at least 0.5x SQLite one instance.
//
// The load comes from wrk (bench/server-load.lua), one process per instance, two threads in all. An activation
// answered still pending would need a long-poll that a shared connection cannot send: it is counted as failed,
// and the bench prints how many there were (none, when the instance that takes the POST finishes it at once). BATON_BENCH_PHASE_MS and BATON_BENCH_ROUNDS set the
// phases (defaults 2000 ms, 3 rounds, alternating activations, starts and /healthz after a warm-up).
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { judge, median } from "./lib.mjs";
import { sorted } from "./load.mjs";
import { benchSchemaUrl, freshBenchSchema } from "./postgres.mjs";
import { root, startBenchServe } from "./serve.mjs";
import { runLoadScript } from "./wrk.mjs";

const CLIENTS = 50;
const USERS = 2000;
const PHASE_MS = Number(process.env.BATON_BENCH_PHASE_MS ?? 2000);
const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 3);
const WARMUP_MS = 2000;
const memberToken = (i) => `btn_bench-user-${String(i).padStart(5, "0")}-0000000000`;

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-store-serve-"));

/** The server bench's seed (ws_acme: the repositories activations ask for) plus ws_bench's members. */
function writeSeed() {
  const seed = JSON.parse(readFileSync(join(root, "fixtures", "server", "seed.json"), "utf8"));
  seed.agent = { rules: [{ reply: "ok" }] };
  seed.workspaces.push({
    id: "ws_bench",
    name: "Bench",
    plan: { name: "bench", concurrency: 64, queueSize: 100_000 },
    members: Array.from({ length: USERS }, (_, i) => ({
      email: `u${i}@bench.test`,
      role: "member",
      token: memberToken(i),
    })),
    repositories: [{ repository: "bench/app" }],
  });
  const path = join(tmp, "seed.json");
  writeFileSync(path, JSON.stringify(seed));
  return path;
}

/** Starts `count` instances: on SQLite one; on PostgreSQL a fresh schema, the first instance seeding it. */
async function startInstances(engine, count, seed) {
  if (engine === "sqlite") {
    const serve = await startBenchServe({ seed });
    return { instances: [serve], stop: () => serve.stop() };
  }
  const { schema, drop } = await freshBenchSchema();
  const databaseUrl = benchSchemaUrl(schema);
  const secretKeyFile = join(tmp, `${schema}.key`);
  const adminToken = randomBytes(32).toString("hex");
  const instances = [];
  const stop = async () => {
    await Promise.all(instances.map((serve) => serve.stop()));
    await drop();
  };
  try {
    for (let i = 0; i < count; i++) {
      const options = { databaseUrl, secretKeyFile, adminToken, ...(i === 0 ? { seed } : {}) };
      instances.push(await startBenchServe(options));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { instances, stop };
}

/** The 50 clients split over the instances round-robin: client i talks to instance i mod n. */
function shares(count) {
  return Array.from({ length: count }, (_, instance) =>
    Array.from({ length: CLIENTS }, (_, i) => i).filter((i) => i % count === instance),
  );
}

async function measureRow(label, engine, count, seed) {
  const { instances, stop } = await startInstances(engine, count, seed);
  try {
    // Sandboxes are made on the first instance; with PostgreSQL every instance reads them from the store.
    const sandboxes = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        instances[0].createSandbox({ workspaceId: "ws_acme", engagementId: `bench-${i}` }),
      ),
    );
    const files = shares(count).map((clients, instance) => {
      const activate = join(tmp, `${engine}${count}-${instance}-activate`);
      const start = join(tmp, `${engine}${count}-${instance}-start`);
      writeFileSync(
        activate,
        clients.map((i) => `${sandboxes[i].turnToken} ${sandboxes[i].lease}\n`).join(""),
        {
          mode: 0o600,
        },
      );
      // Each instance's clients rotate over their own slice of the members.
      const members = Array.from({ length: USERS }, (_, u) => u).filter((u) => u % count === instance);
      writeFileSync(start, members.map((u) => `${memberToken(u)} -\n`).join(""), { mode: 0o600 });
      return { activate, start, connections: clients.length };
    });
    let phase = 0;
    const runPhase = async (mode, ms) => {
      const prefix = `${engine}${count}-${phase++}`;
      const results = await Promise.all(
        instances.map((serve, i) =>
          runLoadScript({
            url: mode === "activate" ? serve.opsUrl : serve.url,
            mode,
            ms,
            credentials: mode === "healthz" ? files[i].activate : files[i][mode],
            prefix,
            connections: files[i].connections,
            // Two wrk threads in all, as the server bench: one instance gets both, three get one each.
            threads: instances.length === 1 ? 2 : 1,
          }),
        ),
      );
      return {
        rate: results.reduce((sum, r) => sum + r.units / (r.us / 1e6), 0),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        polls: results.reduce((sum, r) => sum + r.polls, 0),
      };
    };
    await runPhase("activate", WARMUP_MS);
    await runPhase("start", WARMUP_MS);
    await runPhase("healthz", 1000);
    const rounds = { activate: [], start: [], healthz: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ["activate", "start", "healthz"]) rounds[mode].push(await runPhase(mode, PHASE_MS));
    }
    const med = (mode) => median(sorted(rounds[mode].map((r) => r.rate)));
    const sum = (mode, field) => rounds[mode].reduce((n, r) => n + r[field], 0);
    return {
      label,
      healthz: med("healthz"),
      activations: med("activate"),
      starts: med("start"),
      notes: `activations long-polled ${sum("activate", "polls")}, failed ${sum("activate", "errors")}; starts refused or failed ${sum("start", "errors")}`,
    };
  } finally {
    await stop();
  }
}

try {
  const seed = writeSeed();
  const rows = [
    await measureRow("SQLite, one instance", "sqlite", 1, seed),
    await measureRow("PostgreSQL, one instance", "postgres", 1, seed),
    await measureRow("PostgreSQL, three instances", "postgres", 3, seed),
  ];
  const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
  const ratio = (n, base) => `${(n / base).toFixed(3)}x`;
  console.log(
    `${CLIENTS} clients over loopback HTTP; medians of ${ROUNDS} rounds of ${PHASE_MS / 1000} s per phase\n`,
  );
  console.log("| row | GET /healthz /s | activations /s | vs /healthz | task starts /s | vs /healthz |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.label} | ${fmt(r.healthz)} | ${fmt(r.activations)} | ${ratio(r.activations, r.healthz)} | ${fmt(r.starts)} | ${ratio(r.starts, r.healthz)} |`,
    );
  }
  console.log("");
  for (const r of rows) console.log(`${r.label}: ${r.notes}`);
  const [sqlite, pg1, pg3] = rows;
  console.log(
    `\nPostgreSQL one instance / SQLite one instance: activations ${ratio(pg1.activations, sqlite.activations)}, ` +
      `task starts ${ratio(pg1.starts, sqlite.starts)} (goal: at least 0.5x)`,
  );
  console.log(
    `PostgreSQL three instances / one: activations ${ratio(pg3.activations, pg1.activations)}, ` +
      `task starts ${ratio(pg3.starts, pg1.starts)}`,
  );
  // Issue 36 point 2's goals, on the figures of this run.
  judge("PostgreSQL one instance / SQLite, activations", pg1.activations / sqlite.activations, {
    target: 0.5,
  });
  judge("PostgreSQL one instance / SQLite, task starts", pg1.starts / sqlite.starts, { target: 0.5 });
  judge("PostgreSQL three instances / one, activations", pg3.activations / pg1.activations, { target: 1.5 });
  judge("PostgreSQL three instances / one, task starts", pg3.starts / pg1.starts, { target: 1.5 });
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
