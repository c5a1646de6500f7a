// What one machine holds (issue 36 item 6): memory and CPU per idle and per busy box on each driver, boxes per
// GiB, and what one `baton serve` instance costs (its memory, its PostgreSQL connections and theirs, store bytes per
// task). Baselines of the same run: an empty `docker run --init <image> sleep infinity` container for an idle box,
// the same workload run straight on the host for a busy box, an idle `node` process for the service's memory.
//
// Boxes are made the way bench/sandbox.bench.mjs makes them (the drivers from dist/, the fixture checkout copied
// in, the recorded sandbox image; this bench builds none), with a proxy and an operations endpoint (a listener of
// this process) so each box has the forwarders a served box has. Every box, container and schema it makes is
// removed in a finally. Needs root, Docker, bubblewrap and the image (scripts/setup-machine.sh, `npm run
// sandbox-image`), and PostgreSQL (bench/postgres.mjs). Settings: BATON_BENCH_BOXES idle boxes per driver (default
// 10, at most 20), BATON_BENCH_BUSY_BOXES busy ones (default 2, at most 4: each runs a CPU-bound loop),
// BATON_BENCH_WINDOW_MS the idle window (default 10000), BATON_BENCH_BUSY_S the busy loop's length (default 10).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { createDockerDriver } from "../dist/src/server/adapters/sandboxes/drivers/docker.js";
import { createNamespaceDriver } from "../dist/src/server/adapters/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../dist/src/server/adapters/sandboxes/image.js";
import { judge, report } from "./lib.mjs";
import { createLoad, writeMembersSeed } from "./load.mjs";
import { benchSchemaUrl, DATABASE_URL, freshBenchSchema } from "./postgres.mjs";
import { root, startBenchServe } from "./serve.mjs";

const bounded = (value, fallback, max) => Math.min(max, Math.max(1, Number(value ?? fallback) || fallback));
const BOXES = bounded(process.env.BATON_BENCH_BOXES, 10, 20);
const BUSY = Math.min(BOXES, bounded(process.env.BATON_BENCH_BUSY_BOXES, 2, 4));
const WINDOW_MS = bounded(process.env.BATON_BENCH_WINDOW_MS, 10_000, 60_000);
const BUSY_S = bounded(process.env.BATON_BENCH_BUSY_S, 10, 60);
const MIB = 1024 * 1024;
const fixture = join(root, "fixtures", "repos", "acme-api");
// Read again before each driver: a rebuild of the image on this machine replaces the recorded folders.
let image = resolveSandboxImage();
if (!image.image) throw new Error("no sandbox image: run `npm run sandbox-image` first");
const tmp = mkdtempSync(join(tmpdir(), "baton-capacity-bench-"));
const name = () => `baton-sandbox-capacity-${randomBytes(4).toString("hex")}`;
const TICKS_PER_S = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }));

// --- what the kernel says --------------------------------------------------------------------------------------

const read = (path) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
};
/** /proc/meminfo's MemAvailable, bytes. */
const memAvailable = () => Number(/MemAvailable:\s+(\d+)/.exec(read("/proc/meminfo"))[1]) * 1024;
/**
 * The kernel's own memory that no cache gives back (unreclaimable slab, stacks, page tables, per-CPU): where a
 * network namespace, a veth pair, firewall rules and mounts go. Less noisy than MemAvailable, which moves with
 * every other process's page cache.
 */
function kernelMemory() {
  const info = read("/proc/meminfo");
  const field = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(info)?.[1] ?? 0) * 1024;
  return field("SUnreclaim") + field("KernelStack") + field("PageTables") + field("Percpu");
}
/** A process's private memory (what it alone holds, what one more box adds), bytes. */
const uss = (pid) => {
  const text = read(`/proc/${pid}/smaps_rollup`) ?? "";
  const field = (key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, "m").exec(text)?.[1] ?? 0) * 1024;
  return field("Private_Clean") + field("Private_Dirty");
};
/** A process's proportional set size (shared pages split among their users), bytes; 0 once it is gone. */
const pss = (pid) => Number(/^Pss:\s+(\d+)/m.exec(read(`/proc/${pid}/smaps_rollup`) ?? "")?.[1] ?? 0) * 1024;
const rss = (pid) => Number(/^VmRSS:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1] ?? 0) * 1024;
const hwm = (pid) => Number(/^VmHWM:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1] ?? 0) * 1024;
/** utime+stime of a process (with `children`: of the children it waited for instead), milliseconds. */
function cpuMs(pid, children = false) {
  const text = read(`/proc/${pid}/stat`);
  if (!text) return 0;
  const f = text.slice(text.lastIndexOf(") ") + 2).split(" ");
  const ticks = children ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12]);
  return (ticks / TICKS_PER_S) * 1000;
}
const pids = () => readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
/** Processes whose real uid is `uid` (a box's own host user: both drivers give each box one). */
const pidsOfUid = (uid) =>
  pids().filter((pid) => /^Uid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1] === String(uid));
/** `pid` and its descendants. */
function tree(pid) {
  const parents = new Map();
  for (const p of pids()) {
    const text = read(`/proc/${p}/stat`);
    if (text) parents.set(p, text.slice(text.lastIndexOf(") ") + 2).split(" ")[1]);
  }
  const found = new Set([String(pid)]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, parent] of parents)
      if (found.has(parent) && !found.has(p)) {
        found.add(p);
        grew = true;
      }
  }
  return [...found];
}
/** The containerd shim of a container (outside its cgroup, one per container). */
const shimOf = (id) =>
  pids().find((pid) => {
    const cmd = read(`/proc/${pid}/cmdline`) ?? "";
    return cmd.includes("containerd-shim") && cmd.includes(`\0${id}\0`);
  });

/** A container's memory cgroup (cgroup v1 or v2, cgroupfs or systemd driver). */
function containerCgroup(id, controller) {
  const candidates = [
    `/sys/fs/cgroup/${controller}/docker/${id}`,
    `/sys/fs/cgroup/${controller}/system.slice/docker-${id}.scope`,
    `/sys/fs/cgroup/system.slice/docker-${id}.scope`,
    `/sys/fs/cgroup/docker/${id}`,
  ];
  return candidates.find((dir) => read(`${dir}/cgroup.procs`) !== undefined);
}
/** A container's memory: working set (what `docker stats` shows: usage less inactive file pages), anon, file. */
function containerMemory(id) {
  const v1 = containerCgroup(id, "memory");
  const stat = read(`${v1}/memory.stat`) ?? "";
  const field = (key) => Number(new RegExp(`^${key} (\\d+)`, "m").exec(stat)?.[1] ?? 0);
  const usage = Number(read(`${v1}/memory.usage_in_bytes`) ?? read(`${v1}/memory.current`) ?? 0);
  const v2 = stat.includes("\nanon ") || stat.startsWith("anon ");
  const inactive = v2 ? field("inactive_file") : field("total_inactive_file");
  return {
    workingSet: usage - inactive,
    anon: v2 ? field("anon") : field("total_rss"),
    file: v2 ? field("file") : field("total_cache"),
  };
}
/** The processes in a container's cgroup. */
const containerPids = (id) =>
  (read(`${containerCgroup(id, "memory")}/cgroup.procs`) ?? "").split("\n").filter((pid) => pid !== "");
/** A container's CPU time so far, milliseconds. */
function containerCpuMs(id) {
  const dir = containerCgroup(id, "cpuacct");
  const v1 = read(`${dir}/cpuacct.usage`);
  if (v1 !== undefined) return Number(v1) / 1e6;
  return Number(/^usage_usec (\d+)/m.exec(read(`${dir}/cpu.stat`) ?? "")?.[1] ?? 0) / 1000;
}
const du = (path) => Number(execFileSync("du", ["-sk", path], { encoding: "utf8" }).split("\t")[0]) * 1024;
const mean = (values) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
const mib = (bytes) => bytes / MIB;

/** Samples `fn` every 500 ms until `until` settles; the samples' mean and peak. */
async function sampling(fn, until) {
  const samples = [fn()];
  let done = false;
  const finished = until.finally(() => {
    done = true;
  });
  while (!done) {
    await Promise.race([delay(500), finished]);
    if (!done) samples.push(fn());
  }
  await finished;
  return { mean: mean(samples), peak: Math.max(...samples) };
}

/**
 * The busy workload: the fixture's tests (`node --test`, as its `npm test`) in a loop that ends after BUSY_S s,
 * then how many runs it made and its CPU time (`times`).
 */
const busyScript = (dir) =>
  `cd ${dir} && end=$((SECONDS+${BUSY_S})); n=0; while [ $SECONDS -lt $end ]; do node --test >/dev/null 2>&1; n=$((n+1)); done; echo $n; times`;

// --- the run ---------------------------------------------------------------------------------------------------

/** The workload's answer: its runs and its CPU (bash's `times`: the shell and every child it waited for), ms. */
function parseWorkload(out) {
  const [runs, ...times] = out.trim().split("\n");
  const ms = (token) => {
    const [, m, sec] = /^(\d+)m([\d.]+)s$/.exec(token);
    return (Number(m) * 60 + Number(sec)) * 1000;
  };
  const cpu = times
    .flatMap((line) => line.trim().split(/\s+/))
    .filter((token) => token !== "")
    .reduce((sum, token) => sum + ms(token), 0);
  return { runs: Number(runs), cpu };
}

const endpoint = createServer((socket) => socket.end());
await new Promise((resolve) => endpoint.listen(0, "127.0.0.1", resolve));
const port = endpoint.address().port;
const endpoints = { proxy: { host: "127.0.0.1", port }, ops: { host: "127.0.0.1", port } };
const figures = {};
const ofUid = (uid, measure) => pidsOfUid(uid).reduce((sum, pid) => sum + measure(pid), 0);

try {
  // Baselines: an empty container of the same image, and the workload on the host.
  const baselineId = execFileSync(
    "docker",
    ["run", "-d", "--rm", "--init", "--network", "none", "--name", name(), image.image, "sleep", "infinity"],
    { encoding: "utf8" },
  ).trim();
  try {
    await delay(2000);
    const baseShim = shimOf(baselineId);
    const cpu0 = containerCpuMs(baselineId) + cpuMs(baseShim);
    await delay(WINDOW_MS);
    const mem = containerMemory(baselineId);
    const processes = containerPids(baselineId).reduce((sum, pid) => sum + pss(pid), 0);
    figures.baseline = {
      label: "empty container (docker run --init, sleep infinity)",
      value: mib(processes + pss(baseShim)),
      processes: mib(processes),
      cgroup: mib(mem.workingSet),
      shim: mib(pss(baseShim)),
      cpu: (containerCpuMs(baselineId) + cpuMs(baseShim) - cpu0) / WINDOW_MS,
    };
  } finally {
    execFileSync("docker", ["rm", "-f", baselineId], { stdio: "ignore" });
  }
  {
    const child = spawn("bash", ["-c", busyScript(fixture)], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    const memory = await sampling(() => tree(child.pid).reduce((sum, pid) => sum + pss(pid), 0), exited);
    const { runs, cpu } = parseWorkload(out);
    figures.hostBusy = {
      label: "the workload on the host",
      value: mib(memory.mean),
      peak: mib(memory.peak),
      cpu: cpu / (BUSY_S * 1000),
      cpuPerRun: cpu / Math.max(1, runs),
      runs,
    };
  }

  for (const driverName of ["docker", "namespace"]) {
    image = resolveSandboxImage();
    const driver =
      driverName === "docker"
        ? await createDockerDriver({ endpoints })
        : await createNamespaceDriver({ endpoints, rootfs: image.rootfs, batonDir: image.batonDir });
    const refs = [];
    try {
      const memBefore = memAvailable();
      const kernelBefore = kernelMemory();
      const selfBefore = rss(process.pid);
      for (let i = 0; i < BOXES; i++) {
        const box = await driver.create({
          name: name(),
          image: image.image,
          env: {},
          checkouts: [{ hostPath: fixture, repository: "acme/api" }],
        });
        refs.push(box.ref);
        const ready = await driver.exec(box.ref, ["true"], { timeoutMs: 30_000 });
        if (ready.exitCode !== 0) throw new Error(`${driverName} box did not answer`);
      }
      const memCreated = memAvailable();
      const kernelCreated = kernelMemory();
      await delay(2000);
      // Each box runs as a host user of its own on both drivers: its processes are those of that uid.
      const uids = refs.map((ref) =>
        driverName === "docker"
          ? Number(
              execFileSync("docker", ["inspect", "-f", '{{index .Config.Labels "baton.sandbox.uid"}}', ref], {
                encoding: "utf8",
              }),
            )
          : JSON.parse(readFileSync(join(ref, "box.json"), "utf8")).uid,
      );
      // Idle: what each box holds once made and answering, and its CPU over the window.
      const shims = driverName === "docker" ? refs.map(shimOf) : [];
      const cpuNow = () =>
        driverName === "docker"
          ? refs.reduce((sum, ref, i) => sum + containerCpuMs(ref) + cpuMs(shims[i]), 0)
          : uids.reduce((sum, uid) => sum + ofUid(uid, cpuMs), 0);
      const cpu0 = cpuNow();
      const self0 = cpuMs(process.pid);
      await delay(WINDOW_MS);
      const idleCpu = (cpuNow() - cpu0) / WINDOW_MS / BOXES;
      const selfCpu = (cpuMs(process.pid) - self0) / WINDOW_MS;
      const disk = driverName === "docker" ? refs.map(dockerSizeRw) : refs.map(du);
      const processes = mean(uids.map((uid) => ofUid(uid, pss)));
      const processesUss = mean(uids.map((uid) => ofUid(uid, uss)));
      let perBox;
      let parts;
      if (driverName === "docker") {
        const mems = refs.map(containerMemory);
        const cgroup = mean(mems.map((m) => m.workingSet));
        const shim = mean(shims.map(pss));
        perBox = processes + shim;
        parts = `the box's processes (init, sleep) PSS ${mib(processes).toFixed(2)} MiB + containerd shim PSS ${mib(shim).toFixed(2)} MiB (private: ${mib(processesUss).toFixed(2)} + ${mib(mean(shims.map(uss))).toFixed(2)} MiB); cgroup working set ${mib(cgroup).toFixed(2)} MiB (anon ${mib(mean(mems.map((m) => m.anon))).toFixed(2)}, file ${mib(mean(mems.map((m) => m.file))).toFixed(2)})`;
      } else {
        // A namespace box keeps no process between commands: what it holds is its network namespace, veth pair
        // and firewall rules (kernel memory: the MemAvailable cross-check) and two forwarders in the driver's process.
        const forwarders = (rss(process.pid) - selfBefore) / BOXES;
        perBox = processes + Math.max(0, forwarders);
        parts = `box processes PSS ${mib(processes).toFixed(2)} MiB + driver process RSS growth ${mib(forwarders).toFixed(2)} MiB per box (its forwarders)`;
      }
      const idle = {
        label: `${driverName} driver: idle box`,
        value: mib(perBox),
        parts,
        cpu: idleCpu,
        selfCpu,
        fell: mib((memBefore - memCreated) / BOXES),
        kernelFell: mib((kernelCreated - kernelBefore) / BOXES),
        disk: mib(mean(disk)),
      };
      figures[`${driverName} idle`] = idle;

      // Busy: the first BUSY boxes run the workload at once.
      const busyRefs = refs.slice(0, BUSY);
      const cgroupCpu0 =
        driverName === "docker" ? busyRefs.reduce((sum, ref) => sum + containerCpuMs(ref), 0) : 0;
      const running = Promise.all(
        busyRefs.map((ref) =>
          driver.exec(ref, ["bash", "-c", busyScript("~/checkouts/acme/api")], {
            timeoutMs: (BUSY_S + 60) * 1000,
          }),
        ),
      );
      const [memory, cgroupMemory] = await Promise.all([
        sampling(() => mean(uids.slice(0, BUSY).map((uid) => ofUid(uid, pss))), running),
        driverName === "docker"
          ? sampling(() => mean(busyRefs.map((ref) => containerMemory(ref).workingSet)), running)
          : undefined,
      ]);
      const results = (await running).map((r) => parseWorkload(r.stdout));
      const cpu = results.reduce((sum, r) => sum + r.cpu, 0);
      const runs = results.reduce((sum, r) => sum + r.runs, 0);
      const shimBusy = driverName === "docker" ? mean(shims.slice(0, BUSY).map(pss)) : 0;
      figures[`${driverName} busy`] = {
        label: `${driverName} driver: busy box`,
        value: mib(memory.mean + shimBusy),
        peak: mib(memory.peak + shimBusy),
        cpu: cpu / (BUSY_S * 1000) / BUSY,
        cpuPerRun: cpu / Math.max(1, runs),
        cgroupCpu:
          driverName === "docker"
            ? (busyRefs.reduce((sum, ref) => sum + containerCpuMs(ref), 0) - cgroupCpu0) / Math.max(1, runs)
            : undefined,
        cgroupMemory: cgroupMemory ? mib(cgroupMemory.mean) : undefined,
        runs: runs / BUSY,
      };
      const memLoaded = memAvailable();
      const kernelLoaded = kernelMemory();
      for (const ref of refs.splice(0)) await driver.remove(ref);
      await delay(1000);
      idle.rose = mib((memAvailable() - memLoaded) / BOXES);
      idle.kernelRose = mib((kernelLoaded - kernelMemory()) / BOXES);
    } finally {
      for (const ref of refs) await driver.remove(ref).catch(() => undefined);
      await driver.close();
    }
  }

  await measureServe();
} finally {
  endpoint.close();
  rmSync(tmp, { recursive: true, force: true });
}

function dockerSizeRw(id) {
  return Number(execFileSync("docker", ["inspect", "--size", "-f", "{{.SizeRw}}", id], { encoding: "utf8" }));
}

/** One `baton serve` on a fresh PostgreSQL schema: its memory, its connections, store bytes per task. */
async function measureServe() {
  const USERS = 500;
  const CLIENTS = 50;
  const token = (i) => `btn_capacity-user-${String(i).padStart(5, "0")}-0000000000`;
  const seed = writeMembersSeed(tmp, { users: USERS, token });
  const { schema, drop } = await freshBenchSchema();
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  const idleNode = spawn(process.execPath, ["-e", "setInterval(() => {}, 1e6)"], { stdio: "ignore" });
  let serve;
  try {
    serve = await startBenchServe({
      seed,
      databaseUrl: benchSchemaUrl(schema),
      secretKeyFile: join(tmp, "serve.key"),
    });
    await delay(2000);
    /** The serve process's connections to PostgreSQL (its sockets, by `ss`), and their backends. */
    const connections = async () => {
      const out = execFileSync("ss", ["-Htnp", "state", "established", "( dport = :5432 )"], {
        encoding: "utf8",
      });
      const ports = out
        .split("\n")
        .filter((line) => line.includes(`pid=${serve.pid},`))
        .map((line) => Number(line.trim().split(/\s+/)[2].split(":").pop()));
      const { rows } = await admin.query(
        "SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND client_addr IS NOT NULL",
        [ports],
      );
      return { sockets: ports.length, backends: rows.map((r) => r.pid) };
    };
    const idle = await connections();
    const idleRss = rss(serve.pid);
    const counts = async () => {
      const { rows } = await admin.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
        [schema],
      );
      const result = {};
      for (const { table_name } of rows) {
        const q = `"${schema}"."${table_name}"`;
        const { rows: r } = await admin.query(
          `SELECT count(*)::int AS n, pg_total_relation_size('${q}') AS bytes FROM ${q}`,
        );
        result[table_name] = { rows: r[0].n, bytes: Number(r[0].bytes) };
      }
      return result;
    };
    const before = await counts();
    // 50 clients start tasks (the scripted agent answers each), which takes every connection the pool has.
    let next = 0;
    const load = createLoad({ url: serve.url, clients: CLIENTS, nextToken: () => token(next++ % USERS) });
    let peak = idle;
    const phase = load.phase(
      5000,
      () => load.call("POST", "/v1/workspaces/ws_bench/tasks", { prompt: "capacity: fix it" }),
      (answer) => answer.status === 201 || answer.status === 202,
    );
    let loading = true;
    const started = phase.finally(() => {
      loading = false;
    });
    while (loading) {
      const seen = await connections();
      if (seen.sockets > peak.sockets) peak = seen;
      // Each backend's memory while it is busy (PSS: shared buffers split among the backends).
      if (seen.sockets >= peak.sockets) peak.pss = mean(seen.backends.map(pss));
      await delay(300);
    }
    const { durations } = await started;
    const backendPss = peak.pss ?? mean(peak.backends.map(pss));
    load.agent.destroy();
    await delay(3000);
    const after = await counts();
    const tasks = durations.length;
    const grown = Object.entries(after)
      .map(([table, a]) => ({
        table,
        rows: (a.rows - (before[table]?.rows ?? 0)) / tasks,
        bytes: (a.bytes - (before[table]?.bytes ?? 0)) / tasks,
      }))
      .filter((g) => g.rows > 0)
      .sort((a, b) => b.rows - a.rows);
    const usersRows = ["members", "users", "personal_access_tokens"].reduce(
      (sum, t) => sum + (before[t]?.rows ?? 0),
      0,
    );
    const { rows: maxRows } = await admin.query(
      "SELECT current_setting('max_connections')::int AS max, current_setting('superuser_reserved_connections')::int AS reserved",
    );
    figures.serve = {
      idleRss: mib(idleRss),
      peakRss: mib(hwm(serve.pid)),
      nodeRss: mib(rss(idleNode.pid)),
      idleConnections: idle.sockets,
      peakConnections: peak.sockets,
      backendPss: mib(backendPss),
      tasks,
      grown,
      rowsPerTask: grown.reduce((sum, g) => sum + g.rows, 0),
      bytesPerTask: grown.reduce((sum, g) => sum + g.bytes, 0),
      usersRowsPerUser: usersRows / USERS,
      maxConnections: maxRows[0].max - maxRows[0].reserved,
    };
  } finally {
    idleNode.kill();
    await serve?.stop();
    await admin.end();
    await drop();
  }
}

// --- the figures -----------------------------------------------------------------------------------------------

const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
console.log(
  `${BOXES} idle boxes per driver over ${WINDOW_MS / 1000} s, ${BUSY} busy ones running the fixture's tests in a loop for ${BUSY_S} s, on ${image.image}; load average at the end ${load}`,
);
const base = figures.baseline;
report(`${base.label}`, base.value, "MiB");
console.log(
  `  processes' PSS ${base.processes.toFixed(2)} MiB + shim ${base.shim.toFixed(2)} MiB (cgroup working set ${base.cgroup.toFixed(2)} MiB); CPU ${(base.cpu * 100).toFixed(3)}% of a core`,
);
report(`${figures.hostBusy.label}, PSS mean`, figures.hostBusy.value, "MiB");
console.log(
  `  peak ${figures.hostBusy.peak.toFixed(1)} MiB; CPU ${figures.hostBusy.cpu.toFixed(2)} cores; ${figures.hostBusy.runs} runs, ${figures.hostBusy.cpuPerRun.toFixed(0)} ms CPU each`,
);
const cores = String(availableParallelism());
for (const driverName of ["docker", "namespace"]) {
  const idle = figures[`${driverName} idle`];
  const busy = figures[`${driverName} busy`];
  report(idle.label, idle.value, "MiB", base);
  console.log(`  ${idle.parts}`);
  console.log(
    `  the kernel's unreclaimable memory (slab, stacks, page tables, per-CPU): grew ${idle.kernelFell.toFixed(2)} MiB per box made, shrank ${idle.kernelRose.toFixed(2)} MiB per box removed`,
  );
  console.log(
    `  cross-check, the whole machine's MemAvailable (other work moves it too): fell ${idle.fell.toFixed(2)} MiB per box made, rose ${idle.rose.toFixed(2)} MiB per box removed`,
  );
  console.log(
    `  disk ${idle.disk.toFixed(2)} MiB per box; CPU ${(idle.cpu * 100).toFixed(3)}% of a core per box`,
  );
  report(`${busy.label}, memory mean`, busy.value, "MiB", figures.hostBusy);
  console.log(
    `  processes' PSS${driverName === "docker" ? " + shim" : ""}; peak ${busy.peak.toFixed(1)} MiB${busy.cgroupMemory === undefined ? "" : `; cgroup working set mean ${busy.cgroupMemory.toFixed(1)} MiB`}`,
  );
  console.log(
    `  CPU ${busy.cpu.toFixed(2)} cores per box (${BUSY} at once on ${cores} cores); ${busy.runs.toFixed(1)} runs per box, ${busy.cpuPerRun.toFixed(0)} ms CPU each (${(busy.cpuPerRun / figures.hostBusy.cpuPerRun).toFixed(2)}x the host's)${busy.cgroupCpu === undefined ? "" : `; the cgroup counted ${busy.cgroupCpu.toFixed(0)} ms per run`}`,
  );
  console.log(
    `  boxes per GiB: idle ${(1024 / idle.value).toFixed(0)}, busy ${(1024 / busy.value).toFixed(1)}`,
  );
}
const s = figures.serve;
report("baton serve RSS, idle (PostgreSQL)", s.idleRss, "MiB", { label: "idle node", value: s.nodeRss });
report("baton serve RSS, peak under 50 clients starting tasks", s.peakRss, "MiB", {
  label: "idle node",
  value: s.nodeRss,
});
console.log(
  `PostgreSQL connections per instance: ${s.idleConnections} idle, ${s.peakConnections} under load; backend PSS ${s.backendPss.toFixed(1)} MiB each; the server takes ${s.maxConnections} (max_connections less reserved): ${Math.floor(s.maxConnections / Math.max(1, s.peakConnections))} instances`,
);
judge("connections per instance at most the pool (10) and the LISTEN connection", s.peakConnections, {
  target: 11,
  atMost: true,
  unit: "connections",
});
console.log(
  `store growth per task started (${s.tasks} tasks): ${s.rowsPerTask.toFixed(1)} rows, ${(s.bytesPerTask / 1024).toFixed(1)} KiB (tables and indexes, PostgreSQL pages)`,
);
for (const g of s.grown.slice(0, 8)) console.log(`  ${g.table}: ${g.rows.toFixed(2)} rows per task`);
console.log(`rows per workspace member (members, users, tokens): ${s.usersRowsPerUser.toFixed(1)}`);
