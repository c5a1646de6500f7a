// The MCP endpoint against the public API's routes for the same data, in the same run, on a real `baton serve`
// (temporary SQLite file, the scripted agent answering at once): `tools/call get_task` against
// GET /v1/workspaces/:ws/tasks/:id, and `tools/call get_messages` against GET .../messages (a page of 100 of a
// 500-entry conversation), each pair alternating for five rounds of 2 s with 20 concurrent clients over one
// keep-alive http.Agent, plus GET /healthz to show the generator's ceiling. Calls per second are the rounds'
// medians; p99 is over every round. The seed has 2,000 members with a token each and requests rotate over them,
// so neither the MCP budget (120 calls a minute per token) nor the API's read limit is what is measured.
// Issue 36's goals are judged on get_task: calls/s at least 0.7x the HTTP route's, p99 at most 2x its p99.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { judge, median, percentile, report } from "./lib.mjs";
import { createLoad, range, sorted, writeMembersSeed } from "./load.mjs";
import { startBenchServe } from "./serve.mjs";

const CLIENTS = 20;
const USERS = 2000;
const ROUNDS = Number(process.env.BATON_BENCH_ROUNDS ?? 5);
const PHASE_MS = Number(process.env.BATON_BENCH_PHASE_MS ?? 2000);
const CONVERSATION = 500;
const VERSION = "2026-07-28";

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-mcp-"));
const token = (i) => `btn_bench-user-${String(i).padStart(5, "0")}-0000000000`;
const seedPath = writeMembersSeed(tmp, { users: USERS, token });

const serve = await startBenchServe({ seed: seedPath });
let next = 0;
const nextToken = () => token(next++ % USERS);
const { agent, call, phase } = createLoad({ url: serve.url, clients: CLIENTS, nextToken });

/** One modern-era tools/call, as an MCP client sends it. */
const callTool = (name, args) =>
  call(
    "POST",
    "/v1/mcp",
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": VERSION,
          "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    },
    {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      "mcp-method": "tools/call",
      "mcp-name": name,
    },
  );
const toolAnswered = (a) => a.status === 200 && !JSON.parse(a.text).result?.isError;

/**
 * The service's CPU time so far in ms (Linux: utime + stime from /proc, in clock ticks of 10 ms), or null. On a
 * shared machine calls/s move with the neighbours' load; CPU per call says what a call costs the service itself.
 */
const serviceCpuMs = () => {
  const stat = `/proc/${serve.pid}/stat`;
  if (!existsSync(stat)) return null;
  const fields = readFileSync(stat, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** Alternates the MCP call, the HTTP route and /healthz for ROUNDS rounds; prints and returns the rounds. */
async function compare(label, mcp, http) {
  const sides = {
    mcp: [mcp, toolAnswered],
    http: [http, (a) => a.status === 200],
    healthz: [() => call("GET", "/healthz"), (a) => a.status === 200],
  };
  for (const [work, accept] of Object.values(sides)) await phase(500, work, accept);
  const rounds = { mcp: [], http: [], healthz: [] };
  const cpu = { mcp: { ms: 0, calls: 0 }, http: { ms: 0, calls: 0 }, healthz: { ms: 0, calls: 0 } };
  for (let round = 0; round < ROUNDS; round++)
    for (const [side, [work, accept]] of Object.entries(sides)) {
      const before = serviceCpuMs();
      const result = await phase(PHASE_MS, work, accept);
      rounds[side].push(result);
      if (before !== null) {
        cpu[side].ms += serviceCpuMs() - before;
        cpu[side].calls += result.durations.length;
      }
    }
  const refused = rounds.mcp.concat(rounds.http).reduce((n, r) => n + r.refused, 0);
  console.log(
    `${label}: ${ROUNDS} rounds of ${PHASE_MS / 1000} s, ${CLIENTS} clients; refused or failed: ${refused}`,
  );
  for (const side of Object.keys(sides))
    console.log(`  ${side} per s: ${range(rounds[side].map((r) => r.perSecond))}`);
  const perSecond = (side) => median(sorted(rounds[side].map((r) => r.perSecond)));
  const p99 = (side) => percentile(sorted(rounds[side].flatMap((r) => r.durations)), 99);
  report(`${label} over MCP, calls/s`, perSecond("mcp"), "req/s", {
    value: perSecond("http"),
    label: "of HTTP",
  });
  report(`${label} over HTTP, calls/s`, perSecond("http"), "req/s", {
    value: perSecond("healthz"),
    label: "of /healthz",
  });
  report(`${label} over MCP, p99`, p99("mcp"), "ms", { value: p99("http"), label: "of HTTP" });
  report(`${label} over HTTP, p99`, p99("http"), "ms");
  const cpuPerCall = (side) => cpu[side].ms / cpu[side].calls;
  if (cpu.mcp.calls > 0 && cpu.http.calls > 0) {
    report(`${label} over MCP, service CPU per call`, cpuPerCall("mcp"), "ms", {
      value: cpuPerCall("http"),
      label: "of HTTP",
    });
    report(`${label} over HTTP, service CPU per call`, cpuPerCall("http"), "ms");
  }
  return { perSecond: perSecond("mcp") / perSecond("http"), p99: p99("mcp") / p99("http") };
}

try {
  const first = await call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "the bench conversation" });
  const taskId = JSON.parse(first.text).task.id;
  for (let sent = 1; sent < CONVERSATION; sent++) {
    const answer = await call("POST", `/v1/workspaces/ws_bench/tasks/${taskId}/messages`, {
      text: `message ${sent}`,
    });
    if (answer.status !== 202) throw new Error(`send answered ${answer.status}: ${answer.text}`);
  }
  const taskPath = `/v1/workspaces/ws_bench/tasks/${taskId}`;
  const ids = JSON.parse((await call("GET", `${taskPath}/messages?limit=200`)).text).messages.map(
    (m) => m.id,
  );
  let pick = 0;
  const after = () => ids[(pick++ * 7919) % (ids.length - 1)];
  const args = { workspace_id: "ws_bench", task_id: taskId };
  console.log("");
  const getTask = await compare(
    "get_task",
    () => callTool("get_task", args),
    () => call("GET", taskPath),
  );
  await compare(
    "get_messages (page of 100)",
    () => callTool("get_messages", { ...args, after: after(), limit: 100 }),
    () => call("GET", `${taskPath}/messages?after=${after()}&limit=100`),
  );
  console.log("");
  judge("MCP get_task calls/s / GET .../tasks/{id}", getTask.perSecond, { target: 0.7 });
  judge("MCP get_task p99 / GET .../tasks/{id} p99", getTask.p99, { target: 2, atMost: true });
} finally {
  agent.destroy();
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
