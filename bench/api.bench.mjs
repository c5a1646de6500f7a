// The public API against a real `baton serve` (temporary SQLite file, the scripted agent answering at once) on
// loopback, driven by 20 concurrent clients over one keep-alive http.Agent (20 sockets):
//  1. task starts per second — baseline: GET /healthz per second with the same 20 clients, same run;
//  2. message sends per second on the started tasks — same baseline;
//  3. GET .../messages p50/p99 (pages of 100 at random places) on a 10,000-entry conversation — baseline:
//     GET /healthz p50/p99 with the same clients, same run.
// The seed holds 1,000 members with a token each, and requests rotate over them, so neither the per-token rate
// limit (120 POST / 600 GET a minute) nor the 5-running-tasks limit is what is measured. The healthz rate shows
// the generator's ceiling: the API figures are far below it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile, report } from "./lib.mjs";
import { startBenchServe } from "./serve.mjs";

const CLIENTS = 20;
const USERS = 1000;
const SECONDS = Number(process.env.BATON_BENCH_SECONDS ?? 5);
const CONVERSATION = 10_000;

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-api-"));
const seedPath = join(tmp, "seed.json");
const token = (i) => `btn_bench-user-${String(i).padStart(5, "0")}-0000000000`;
writeFileSync(
  seedPath,
  JSON.stringify({
    agent: { rules: [{ reply: "ok" }] },
    workspaces: [
      {
        id: "ws_bench",
        name: "Bench",
        plan: { name: "bench", concurrency: 64, queueSize: 100_000 },
        members: Array.from({ length: USERS }, (_, i) => ({
          email: `u${i}@bench.test`,
          role: "member",
          token: token(i),
        })),
        repositories: [{ repository: "bench/app" }],
      },
    ],
  }),
);

const serve = await startBenchServe({ seed: seedPath });
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
let next = 0;
const nextToken = () => token(next++ % USERS);

function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    const req = request(
      `${serve.url}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${nextToken()}`,
          ...(payload
            ? { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            text: Buffer.concat(chunks).toString(),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** 20 clients call `work` back to back for SECONDS; returns accepted calls per second and their durations. */
async function load(work, accept) {
  const until = performance.now() + SECONDS * 1000;
  const durations = [];
  let ok = 0;
  let other = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      while (performance.now() < until) {
        const answer = await work(client);
        if (accept(answer)) {
          ok += 1;
          durations.push(answer.ms);
        } else other += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: ok / seconds, durations: durations.sort((a, b) => a - b), other };
}

const healthz = () =>
  load(
    () => call("GET", "/healthz"),
    (a) => a.status === 200,
  );
const taskIds = [];

try {
  // Warm up both paths (JIT, statement cache) before measuring.
  for (let i = 0; i < 200; i++) await call("GET", "/healthz");
  for (let i = 0; i < 50; i++) await call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: `warm ${i}` });

  const health1 = await healthz();
  const starts = await load(
    () => call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "bench: fix it" }),
    (a) => {
      if (a.status !== 202) return false;
      if (taskIds.length < 5000) taskIds.push(JSON.parse(a.text).task.id);
      return true;
    },
  );
  console.log(`(${CLIENTS} clients, ${SECONDS} s each; refused or failed starts: ${starts.other})`);
  report("GET /healthz per second", health1.perSecond, "req/s");
  report("task starts per second", starts.perSecond, "req/s", {
    value: health1.perSecond,
    label: "of /healthz",
  });

  const health2 = await healthz();
  const sends = await load(
    (client) =>
      call(
        "POST",
        `/v1/workspaces/ws_bench/tasks/${taskIds[(client * 7919 + next) % taskIds.length]}/messages`,
        { text: "and more" },
      ),
    (a) => a.status === 202,
  );
  console.log(`(refused or failed sends: ${sends.other})`);
  report("GET /healthz per second", health2.perSecond, "req/s");
  report("message sends per second", sends.perSecond, "req/s", {
    value: health2.perSecond,
    label: "of /healthz",
  });

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
  console.log(`(conversation of ${ids.length} entries)`);
  const health3 = await healthz();
  let pick = 0;
  const pages = await load(
    () =>
      call(
        "GET",
        `/v1/workspaces/ws_bench/tasks/${longId}/messages?after=${ids[(pick++ * 7919) % (ids.length - 100)]}`,
      ),
    (a) => a.status === 200,
  );
  const p = (list, q) => percentile(list.durations, q);
  report("GET /healthz p50", p(health3, 50), "ms");
  report("GET /healthz p99", p(health3, 99), "ms");
  report("GET .../messages (page of 100) p50", p(pages, 50), "ms", {
    value: p(health3, 50),
    label: "of /healthz p50",
  });
  report("GET .../messages (page of 100) p99", p(pages, 99), "ms", {
    value: p(health3, 99),
    label: "of /healthz p99",
  });
  report("GET .../messages per second", pages.perSecond, "req/s", {
    value: health3.perSecond,
    label: "of /healthz",
  });
} finally {
  agent.destroy();
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
