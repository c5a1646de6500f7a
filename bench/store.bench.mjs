// The store engines under load, below HTTP: 50 concurrent clients for a fixed time each run an
// "activation-like" transaction (read an engagement, lock its key, insert an operation, update the engagement,
// notify) and a "task-start-like" one (idempotency key insert ON CONFLICT, count the owner's running tasks under
// its lock, insert a task and its first turn). Rows: SQLite (one file, WAL, synchronous=FULL, group commit);
// PostgreSQL through one store; PostgreSQL through three stores sharing the clients (three instances' pools,
// in this one process). Baseline, per row and in the same run: `SELECT 1` through the same store, so each
// ratio says what the engine's transactions cost, not how fast the machine is. Issue 26's goal: PostgreSQL one
// instance at least 0.5x SQLite. BATON_BENCH_STORE_MS sets each phase's length (default 3000).
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { PostgresStore } from "../dist/src/server/store/postgres-store.js";
import { loadSqlite } from "../dist/src/server/store/sqlite.js";
import { SqliteStore } from "../dist/src/server/store/sqlite-store.js";
import { benchSchemaUrl, freshBenchSchema } from "./postgres.mjs";

const CLIENTS = 50;
const ENGAGEMENTS = 10;
const OWNERS = 10;
const RUNNING_LIMIT = 5;
const PHASE_MS = Number(process.env.BATON_BENCH_STORE_MS ?? 3000);
const WARMUP_MS = 500;

const TABLES = [
  "CREATE TABLE engagements (id TEXT PRIMARY KEY, seq BIGINT NOT NULL, updated_ms BIGINT NOT NULL)",
  "CREATE TABLE operations (id TEXT PRIMARY KEY, engagement_id TEXT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL, created_ms BIGINT NOT NULL)",
  "CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, task_id TEXT NOT NULL, created_ms BIGINT NOT NULL)",
  "CREATE TABLE tasks (id TEXT PRIMARY KEY, owner TEXT NOT NULL, state TEXT NOT NULL, created_ms BIGINT NOT NULL)",
  "CREATE INDEX tasks_by_owner ON tasks (owner, state)",
  "CREATE TABLE turns (id TEXT PRIMARY KEY, task_id TEXT NOT NULL, seq INTEGER NOT NULL, created_ms BIGINT NOT NULL)",
];

async function createTables(store) {
  for (const sql of TABLES) await store.run(sql);
  await store.transaction(async (tx) => {
    for (let i = 0; i < ENGAGEMENTS; i++) {
      await tx.run("INSERT INTO engagements (id, seq, updated_ms) VALUES (?, 0, ?)", [
        `eng-${i}`,
        Date.now(),
      ]);
    }
  });
}

const selectOne = (store) => store.get("SELECT 1 AS one");

function activate(store, client) {
  const engagementId = `eng-${client % ENGAGEMENTS}`;
  return store.transaction(async (tx) => {
    const engagement = await tx.get("SELECT id, seq FROM engagements WHERE id = ?", [engagementId]);
    await tx.lock(`engagement:${engagementId}`);
    const now = Date.now();
    await tx.run("INSERT INTO operations (id, engagement_id, seq, kind, created_ms) VALUES (?, ?, ?, ?, ?)", [
      randomUUID(),
      engagementId,
      engagement.seq + 1,
      "activate",
      now,
    ]);
    await tx.run("UPDATE engagements SET seq = seq + 1, updated_ms = ? WHERE id = ?", [now, engagementId]);
    tx.notify("engagement", engagementId);
  });
}

function startTask(store, client) {
  const owner = `owner-${client % OWNERS}`;
  return store.transaction(async (tx) => {
    const taskId = randomUUID();
    const now = Date.now();
    const key = await tx.run(
      "INSERT INTO idempotency_keys (key, task_id, created_ms) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING",
      [randomUUID(), taskId, now],
    );
    if (key.changes === 0) return;
    // The running-task limit holds across instances only if one owner's starts take turns.
    await tx.lock(`tasks:${owner}`);
    const running = await tx.get("SELECT COUNT(*) AS n FROM tasks WHERE owner = ? AND state = 'running'", [
      owner,
    ]);
    const state = Number(running.n) < RUNNING_LIMIT ? "running" : "queued";
    await tx.run("INSERT INTO tasks (id, owner, state, created_ms) VALUES (?, ?, ?, ?)", [
      taskId,
      owner,
      state,
      now,
    ]);
    await tx.run("INSERT INTO turns (id, task_id, seq, created_ms) VALUES (?, ?, 1, ?)", [
      randomUUID(),
      taskId,
      now,
    ]);
  });
}

/** Runs `work` from CLIENTS concurrent clients (spread over `stores`) for `ms`; returns completions per second. */
async function drive(stores, work, ms) {
  const start = performance.now();
  const deadline = start + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const store = stores[client % stores.length];
      while (performance.now() < deadline) {
        await work(store, client);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - start) / 1000);
}

async function measure(stores) {
  await createTables(stores[0]);
  await drive(stores, activate, WARMUP_MS);
  const select = await drive(stores, selectOne, PHASE_MS);
  const activations = await drive(stores, activate, PHASE_MS);
  const starts = await drive(stores, startTask, PHASE_MS);
  return { select, activations, starts };
}

async function measureSqlite() {
  const dir = mkdtempSync(join(tmpdir(), "baton-bench-store-"));
  const { DatabaseSync } = await loadSqlite();
  const db = new DatabaseSync(join(dir, "store.db"));
  // The pragmas `baton serve` sets (src/server/store/open-store.ts).
  for (const pragma of [
    "journal_mode = WAL",
    "synchronous = FULL",
    "busy_timeout = 5000",
    "temp_store = MEMORY",
  ]) {
    db.exec(`PRAGMA ${pragma}`);
  }
  const store = new SqliteStore(db);
  try {
    return await measure([store]);
  } finally {
    await store.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measurePostgres(instances) {
  const { schema, drop } = await freshBenchSchema();
  const stores = Array.from({ length: instances }, () => new PostgresStore(benchSchemaUrl(schema)));
  try {
    return await measure(stores);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
    await drop();
  }
}

const rows = [
  ["SQLite, one store", await measureSqlite()],
  ["PostgreSQL, one store", await measurePostgres(1)],
  ["PostgreSQL, three stores", await measurePostgres(3)],
];

const fmt = (n) => (n >= 100 ? n.toFixed(0) : n.toFixed(1));
const ratio = (n, base) => `${(n / base).toFixed(3)}x`;
console.log(
  `${CLIENTS} clients, ${PHASE_MS / 1000} s per phase; PostgreSQL pools of 10 connections per store\n`,
);
console.log("| engine | SELECT 1 /s | activations /s | vs SELECT 1 | task starts /s | vs SELECT 1 |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [label, r] of rows) {
  console.log(
    `| ${label} | ${fmt(r.select)} | ${fmt(r.activations)} | ${ratio(r.activations, r.select)} | ${fmt(r.starts)} | ${ratio(r.starts, r.select)} |`,
  );
}
const [sqlite, pg1, pg3] = rows.map(([, r]) => r);
console.log(
  `\nPostgreSQL one store / SQLite: activations ${ratio(pg1.activations, sqlite.activations)}, ` +
    `task starts ${ratio(pg1.starts, sqlite.starts)} (goal: at least 0.5x)`,
);
console.log(
  `PostgreSQL three stores / one: activations ${ratio(pg3.activations, pg1.activations)}, ` +
    `task starts ${ratio(pg3.starts, pg1.starts)}`,
);
