// The public API against a real `baton serve` (temporary SQLite file, synchronous=FULL, the scripted agent
// answering at once) on loopback, driven by 20 concurrent clients over one keep-alive http.Agent (20 sockets):
//  1. task starts per second,
//  2. message sends per second on the started tasks,
//  3. GET .../messages p50 and p99 (pages of 100 at random places) on a 10,000-entry conversation,
// each against GET /healthz with the same clients in the same run. The measured phase and its /healthz phase
// alternate for five rounds of 2 s, so both see the same machine; the figures are the rounds' medians and the
// ratio's range. The seed holds 1,000 members with a token each and requests rotate over them, so neither the
// per-token rate limit (120 POST / 600 GET a minute) nor the 5-running-tasks limit is what is measured;
// /healthz shows the generator's ceiling, far above the API figures.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, percentile, report } from "./lib.mjs";
import { createLoad, range, sorted, writeMembersSeed } from "./load.mjs";
import { startBenchServe } from "./serve.mjs";

const CLIENTS = 20;
const USERS = 1000;
const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 5);
const PHASE_MS = Number(process.env.BATON_BENCH_PHASE_MS ?? 2000);
const CONVERSATION = 10_000;

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-api-"));
const token = (i) => `btn_bench-user-${String(i).padStart(5, "0")}-0000000000`;
const seedPath = writeMembersSeed(tmp, { users: USERS, token });

const serve = await startBenchServe({ seed: seedPath });
let next = 0;
const nextToken = () => token(next++ % USERS);
const { agent, call, phase } = createLoad({ url: serve.url, clients: CLIENTS, nextToken });

const healthz = (ms) =>
  phase(
    ms,
    () => call("GET", "/healthz"),
    (a) => a.status === 200,
  );
/** Alternates the measured phase with /healthz; prints rounds and medians; returns the rounds. */
async function alternate(label, work, accept) {
  await phase(500, work, accept);
  await healthz(500);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++) {
    const measured = await phase(PHASE_MS, work, accept);
    const health = await healthz(PHASE_MS);
    rounds.push({ measured, health });
  }
  const refused = rounds.reduce((n, r) => n + r.measured.refused, 0);
  console.log(
    `${label}: ${ROUNDS} rounds of ${PHASE_MS / 1000} s, ${CLIENTS} clients; refused or failed: ${refused}`,
  );
  console.log(`  ${label} per s: ${range(rounds.map((r) => r.measured.perSecond))}`);
  console.log(`  /healthz per s: ${range(rounds.map((r) => r.health.perSecond))}`);
  console.log(`  ratio per round: ${range(rounds.map((r) => r.measured.perSecond / r.health.perSecond))}`);
  return rounds;
}

const taskIds = [];
try {
  const starts = await alternate(
    "task starts",
    () => call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "bench: fix it" }),
    (a) => {
      if (a.status !== 202) return false;
      if (taskIds.length < 5000) taskIds.push(JSON.parse(a.text).task.id);
      return true;
    },
  );
  const sends = await alternate(
    "message sends",
    () =>
      call("POST", `/v1/workspaces/ws_bench/tasks/${taskIds[(next * 7919) % taskIds.length]}/messages`, {
        text: "and more",
      }),
    (a) => a.status === 202,
  );

  // A 10,000-entry conversation: follow-ups sent to one task (each turn answers every message that waited).
  const first = await call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "the long conversation" });
  const longId = JSON.parse(first.text).task.id;
  let sent = 1;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (sent < CONVERSATION) {
        sent += 1;
        const answer = await call("POST", `/v1/workspaces/ws_bench/tasks/${longId}/messages`, {
          text: `message ${sent}`,
        });
        if (answer.status !== 202) throw new Error(`send answered ${answer.status}: ${answer.text}`);
      }
    }),
  );
  // Measure reads on a quiet service: wait until no task is pending or implementing.
  for (
    const deadline = Date.now() + 120_000;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 200))
  ) {
    const busy = await Promise.all(
      ["pending", "implementing"].map(async (status) => {
        const page = JSON.parse(
          (await call("GET", `/v1/workspaces/ws_bench/tasks?status=${status}&limit=1`)).text,
        );
        return page.tasks.length;
      }),
    );
    if (busy[0] + busy[1] === 0) break;
  }
  const ids = [];
  let after = "";
  for (;;) {
    const page = JSON.parse(
      (await call("GET", `/v1/workspaces/ws_bench/tasks/${longId}/messages?limit=200${after}`)).text,
    );
    ids.push(...page.messages.map((m) => m.id));
    if (!page.next) break;
    after = `&after=${page.next}`;
  }
  let pick = 0;
  const pages = await alternate(
    `pages of 100 (conversation of ${ids.length} entries)`,
    () =>
      call(
        "GET",
        `/v1/workspaces/ws_bench/tasks/${longId}/messages?after=${ids[(pick++ * 7919) % (ids.length - 100)]}`,
      ),
    (a) => a.status === 200,
  );

  const medianOf = (rounds, pick) => median(sorted(rounds.map(pick)));
  const all = (rounds, key) => sorted(rounds.flatMap((r) => r[key].durations));
  console.log("");
  const startsHealth = medianOf(starts, (r) => r.health.perSecond);
  report("GET /healthz per second (median of rounds)", startsHealth, "req/s");
  report(
    "task starts per second (median of rounds)",
    medianOf(starts, (r) => r.measured.perSecond),
    "req/s",
    {
      value: startsHealth,
      label: "of /healthz",
    },
  );
  const sendsHealth = medianOf(sends, (r) => r.health.perSecond);
  report("GET /healthz per second (median of rounds)", sendsHealth, "req/s");
  report(
    "message sends per second (median of rounds)",
    medianOf(sends, (r) => r.measured.perSecond),
    "req/s",
    {
      value: sendsHealth,
      label: "of /healthz",
    },
  );
  const h = all(pages, "health");
  const m = all(pages, "measured");
  report("GET /healthz p50", percentile(h, 50), "ms");
  report("GET /healthz p99", percentile(h, 99), "ms");
  report("GET .../messages (page of 100) p50", percentile(m, 50), "ms", {
    value: percentile(h, 50),
    label: "of /healthz p50",
  });
  report("GET .../messages (page of 100) p99", percentile(m, 99), "ms", {
    value: percentile(h, 99),
    label: "of /healthz p99",
  });
} finally {
  agent.destroy();
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
