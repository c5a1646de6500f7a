// The dashboard's task page against a real `baton serve` (temporary SQLite file, the scripted agent answering at
// once) on loopback: a task with about 1,000 conversation entries, its page (server-rendered HTML with the latest
// 200 entries and a link to the earlier ones, as a signed-in browser asks for it: the session cookie from the real
// e-mailed sign-in link) against
// GET /v1/.../messages for the same task (a page of 200, the API's largest) in the same run. 8 concurrent clients
// over one keep-alive http.Agent; the two phases alternate for five rounds of 2 s, so both see the same machine;
// p50 and p99 over every round's requests. Issue 36's goal: the page's p50 at most 3x the API page's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMailCatcher } from "../scripts/demo/mail-catcher.mjs";
import { signInByMail } from "../scripts/demo/web-session.mjs";
import { judge, percentile, report } from "./lib.mjs";
import { createLoad, range, sorted, writeMembersSeed } from "./load.mjs";
import { startBenchServe } from "./serve.mjs";

const CLIENTS = 8;
const USERS = 20;
const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 5);
const PHASE_MS = Number(process.env.BATON_BENCH_PHASE_MS ?? 2000);
const ENTRIES = 1000;
/** Entries the task page shows (the latest); earlier ones are a link away. */
const SHOWN = 200;

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-dashboard-"));
const token = (i) => `btn_bench-user-${String(i).padStart(5, "0")}-0000000000`;
const seedPath = writeMembersSeed(tmp, { users: USERS, token });
const mail = await startMailCatcher();
const serve = await startBenchServe({ seed: seedPath, args: ["--smtp-url", mail.url] });
let next = 0;
// Rotating the members' tokens keeps the per-token limit (120 POST a minute) out of the set-up.
const { agent, call, phase } = createLoad({
  url: serve.url,
  clients: CLIENTS,
  nextToken: () => token(next++ % USERS),
});

async function entriesOf(taskId) {
  let count = 0;
  let after = "";
  for (;;) {
    const page = JSON.parse(
      (await call("GET", `/v1/workspaces/ws_bench/tasks/${taskId}/messages?limit=200${after}`)).text,
    );
    count += page.messages.length;
    if (!page.next) return count;
    after = `&after=${page.next}`;
  }
}

async function waitQuiet(taskId) {
  for (
    const deadline = Date.now() + 120_000;
    Date.now() < deadline;
    await new Promise((r) => setTimeout(r, 200))
  ) {
    const task = JSON.parse((await call("GET", `/v1/workspaces/ws_bench/tasks/${taskId}`)).text);
    if (task.status !== "pending" && task.status !== "implementing") return;
  }
  throw new Error("the task did not settle");
}

try {
  const first = await call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "the long conversation" });
  const taskId = JSON.parse(first.text).task.id;
  // Follow-ups one at a time: each gets its own reply, so the conversation grows by about two entries a send.
  let entries = 0;
  while (entries < ENTRIES) {
    await waitQuiet(taskId);
    entries = await entriesOf(taskId);
    if (entries >= ENTRIES) break;
    const answer = await call("POST", `/v1/workspaces/ws_bench/tasks/${taskId}/messages`, {
      text: `message ${entries}`,
    });
    if (answer.status !== 202) throw new Error(`send answered ${answer.status}: ${answer.text}`);
    if (entries < ENTRIES - 50)
      for (let i = 0; i < 20; i++)
        await call("POST", `/v1/workspaces/ws_bench/tasks/${taskId}/messages`, {
          text: `message ${entries}.${i}`,
        });
  }
  await waitQuiet(taskId);
  entries = await entriesOf(taskId);
  const cookie = await signInByMail({ url: serve.url, email: "u0@bench.test", mail });
  const pagePath = `/dashboard/workspaces/ws_bench/tasks/${taskId}`;
  const check = await call("GET", pagePath, undefined, { cookie });
  const shown = (check.text.match(/<li class="(user|agent|platform) /g) ?? []).length;
  const expected = Math.min(entries, SHOWN);
  if (check.status !== 200 || shown !== expected || !check.text.includes('id="earlier-entries"'))
    throw new Error(
      `the task page answered ${check.status} with ${shown} of ${entries} entries (expected the latest ${expected} and a link to earlier ones)`,
    );

  const apiPage = () => call("GET", `/v1/workspaces/ws_bench/tasks/${taskId}/messages?limit=200`);
  const taskPage = () => call("GET", pagePath, undefined, { cookie });
  const ok = (a) => a.status === 200;
  await phase(500, taskPage, ok);
  await phase(500, apiPage, ok);
  const rounds = [];
  for (let round = 0; round < ROUNDS; round++)
    rounds.push({ page: await phase(PHASE_MS, taskPage, ok), api: await phase(PHASE_MS, apiPage, ok) });
  const refused = rounds.reduce((n, r) => n + r.page.refused + r.api.refused, 0);
  console.log(
    `task page of a ${entries}-entry conversation, the latest ${shown} shown (${Math.round(check.text.length / 1024)} KiB of HTML) vs GET .../messages?limit=200`,
  );
  console.log(
    `${ROUNDS} rounds of ${PHASE_MS / 1000} s each, ${CLIENTS} clients; refused or failed: ${refused}`,
  );
  console.log(`  task pages per s: ${range(rounds.map((r) => r.page.perSecond))}`);
  console.log(`  API pages per s:  ${range(rounds.map((r) => r.api.perSecond))}`);
  const page = sorted(rounds.flatMap((r) => r.page.durations));
  const api = sorted(rounds.flatMap((r) => r.api.durations));
  console.log("");
  report("GET .../messages?limit=200 p50", percentile(api, 50), "ms");
  report("GET .../messages?limit=200 p99", percentile(api, 99), "ms");
  report(`task page (${entries} entries) p50`, percentile(page, 50), "ms", {
    value: percentile(api, 50),
    label: "of the API page p50",
  });
  report(`task page (${entries} entries) p99`, percentile(page, 99), "ms", {
    value: percentile(api, 99),
    label: "of the API page p99",
  });
  console.log("");
  judge(
    `task page (${entries} entries) p50 / GET .../messages?limit=200 p50`,
    percentile(page, 50) / percentile(api, 50),
    { target: 3, atMost: true },
  );
} finally {
  agent.destroy();
  await serve.stop();
  await mail.close();
  rmSync(tmp, { recursive: true, force: true });
}
