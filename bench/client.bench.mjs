// The client commands against a real `baton serve` on loopback (scripted agent answering at once):
//  1. `baton tasks` and `baton start --no-wait` wall time, each against `baton --version` in the same run;
//  2. the time from `baton start "<prompt>"` to the first agent entry printed, split into the client's start-up
//     and request (spawn → task created), the service's share (task created → agent entry saved, server clocks)
//     and the client's poll wait (entry saved → printed), at the real 3 s poll interval.
// The seed has one member per run, each signed in through its own config folder, so neither the per-token rate
// limit nor the 5-running-tasks limit is measured.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { median, report, timeRuns } from "./lib.mjs";
import { writeMembersSeed } from "./load.mjs";
import { bin, startBenchServe } from "./serve.mjs";

const RUNS = Number(process.env.BATON_BENCH_CLIENT_RUNS ?? 20);
const FOLLOW_RUNS = Number(process.env.BATON_BENCH_CLIENT_FOLLOW_RUNS ?? 7);
const USERS = RUNS * 2 + FOLLOW_RUNS + 8;
const tmp = mkdtempSync(join(tmpdir(), "baton-bench-client-"));
const token = (i) => `btn_bench-client-${String(i).padStart(4, "0")}-000000000000`;
const seedPath = writeMembersSeed(tmp, {
  users: USERS,
  token,
  reply: "Done: {prompt}",
  queueSize: 10_000,
});

const serve = await startBenchServe({ seed: seedPath });
try {
  // One config folder per member, written in the client's own format.
  const now = new Date().toISOString();
  const homes = Array.from({ length: USERS }, (_, i) => {
    const home = join(tmp, `user-${i}`);
    mkdirSync(join(home, "baton"), { recursive: true, mode: 0o700 });
    const config = {
      apiUrl: serve.url,
      token: token(i),
      kind: "personal",
      workspace: "ws_bench",
      signedInAt: now,
      lastUsedAt: now,
      expiresAt: null,
    };
    writeFileSync(join(home, "baton", "config.json"), `${JSON.stringify(config, null, 2)}\n`, {
      mode: 0o600,
    });
    return home;
  });
  let nextHome = 0;
  const envFor = (home) => ({
    ...process.env,
    XDG_CONFIG_HOME: home,
    BATON_API_URL: serve.url,
    BATON_LOG_LEVEL: "",
  });
  const baton = (args, home = homes[0]) =>
    execFileSync(process.execPath, [bin, ...args], { env: envFor(home), cwd: tmp, stdio: "pipe" });

  const version = median(await timeRuns(() => baton(["--version"]), { runs: RUNS }));
  const base = { label: "baton --version", value: version };
  report("baton --version (baseline)", version, "ms");
  report(
    "baton tasks (GET /v1/.../tasks, 20 rows)",
    median(await timeRuns(() => baton(["tasks"]), { runs: RUNS })),
    "ms",
    base,
  );
  report(
    "baton start --no-wait (POST /v1/.../tasks)",
    median(
      await timeRuns(
        () => baton(["start", "--no-wait", "bench a start"], homes[1 + (nextHome++ % (USERS - 1))]),
        { runs: RUNS },
      ),
    ),
    "ms",
    base,
  );

  const parts = { startup: [], service: [], poll: [], total: [] };
  for (let i = 0; i < FOLLOW_RUNS; i++) {
    const home = homes[USERS - 1 - i];
    const spawned = Date.now();
    const t0 = performance.now();
    const printedAt = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, "start", `bench follow ${i}`], {
        env: envFor(home),
        cwd: tmp,
      });
      let out = "";
      child.stdout.on("data", (chunk) => {
        out += chunk;
        if (out.includes("agent: ")) resolve(performance.now());
      });
      child.once("exit", (code) =>
        out.includes("agent: ") ? undefined : reject(new Error(`baton start exited ${code}`)),
      );
    });
    const total = printedAt - t0;
    const listed = JSON.parse(baton(["tasks", "--json", "-n", "1"], home).toString());
    const task = listed.tasks?.[0] ?? listed[0];
    const messages = JSON.parse(baton(["show", "--json", task.id], home).toString()).messages;
    const answer = messages.find((m) => m.role === "agent");
    const created = Date.parse(task.createdAt) - spawned;
    const service = Date.parse(answer.createdAt) - Date.parse(task.createdAt);
    parts.startup.push(created);
    parts.service.push(service);
    parts.poll.push(total - created - service);
    parts.total.push(total);
  }
  if (process.env.BATON_BENCH_DEBUG) console.log(parts);
  const mid = (values) => median([...values].sort((a, b) => a - b));
  report(`baton start → first agent entry printed (median of ${FOLLOW_RUNS})`, mid(parts.total), "ms", base);
  report("  client start-up and start request (spawn → task saved)", mid(parts.startup), "ms");
  report("  the service's share (task saved → agent entry saved)", mid(parts.service), "ms");
  report("  the client's poll wait (entry saved → printed; 3 s polls)", mid(parts.poll), "ms");
  const waited = parts.poll.filter((ms) => ms > 1000).length;
  // Bimodal: the first poll follows the start at once and finds the answer, or the next comes 3 s later.
  report(
    `  the poll wait's slowest run (${waited} of ${FOLLOW_RUNS} runs waited for a second poll)`,
    Math.max(...parts.poll),
    "ms",
  );
} finally {
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
