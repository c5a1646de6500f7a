// The coding agents' layer of the sandbox image: each configured agent's npm package installed from its pinned
// lockfile (sandbox-agents/<id>/, `npm ci`: exact versions, integrity checked, no install scripts) into
// /opt/baton-agents/<id>, owned by root and read-only for the box's user. Cached by the lockfiles and the base
// layer: a run whose agents, lockfiles and base did not change installs nothing.
//
// Beside them, /opt/baton-agents/.compile-cache: V8's code cache of the agents' JavaScript (Node's
// NODE_COMPILE_CACHE), made once here by starting each agent as the box's user in the base root filesystem
// (bubblewrap, no network), so that an agent in a box skips compiling its bundles (Claude Code's CLI alone is
// about 0.5 s of compiling). Node keys the cache by the script's path, its own version and the user's uid, so it is
// made at the path, with the Node and as the uid the box has. Read-only like the rest: a box cannot write to it,
// so no task can plant code in another's cache; Node reads it and silently skips writing.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { restoreLayerFromImage } from "./from-engine.mjs";

export const AGENTS_PREFIX = "/opt/baton-agents";
/** Where the agents' compile cache lives in a box (the catalog sets NODE_COMPILE_CACHE to it for the agent). */
export const COMPILE_CACHE_DIR = `${AGENTS_PREFIX}/.compile-cache`;
/** The box's user (scripts/sandbox-image/rootfs-files.mjs AGENT): the cache's folder name carries the uid. */
const BOX_UID = 1000;
const BOX_GID = 1000;
/** The agents the tests and `npm run demo -- --agent <id>` run, when the operator names none. */
export const DEFAULT_AGENTS = ["claude-code", "codex"];

/** The agents to install: `--agents=a,b` (or `--agents=` for none), else BATON_SANDBOX_AGENTS, else the default. */
export function configuredAgents(argv, env, root) {
  const flag = argv.find((arg) => arg.startsWith("--agents="));
  const text = flag !== undefined ? flag.slice("--agents=".length) : env.BATON_SANDBOX_AGENTS;
  const ids =
    text === undefined
      ? DEFAULT_AGENTS
      : text
          .split(",")
          .map((id) => id.trim())
          .filter(Boolean);
  const known = readdirSync(join(root, "sandbox-agents")).sort();
  for (const id of ids)
    if (!known.includes(id))
      throw new Error(
        `no agent "${id}" in sandbox-agents/ (known: ${known.join(", ")}); fix --agents or BATON_SANDBOX_AGENTS`,
      );
  return [...new Set(ids)].sort();
}

/** Makes every file readable (and folders and programs enterable) by all, writable by none but the owner. */
function readOnlyForOthers(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) {
      chmodSync(path, 0o755);
      readOnlyForOthers(path);
    } else if (stat.isFile()) chmodSync(path, stat.mode & 0o111 ? 0o755 : 0o644);
  }
}

/**
 * Installs `ids` under `<cacheDir>/agents-<key>/opt/baton-agents/<id>` unless that key is there already, with their
 * compile cache made in `rootfs` (the base layer's tree). The key covers each agent's package.json and lockfile and
 * the base layer's key (its Node). Returns null when no agent is configured.
 */
export function buildAgentsLayer({ root, cacheDir, ids, rootfs, baseKey, log, imageOf }) {
  if (ids.length === 0) return null;
  const hash = createHash("sha256").update(`agents-layer-2\0${baseKey}`);
  for (const id of ids) {
    hash.update(`\0${id}\0`);
    for (const file of ["package.json", "package-lock.json"])
      hash.update(readFileSync(join(root, "sandbox-agents", id, file)));
  }
  const key = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `agents-${key}`);
  if (!existsSync(join(dir, "complete")) && !restoredFromEngine({ dir, tag: imageOf?.(key), log })) {
    const staging = `${dir}.tmp-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    for (const id of ids) {
      const started = performance.now();
      const prefix = join(staging, AGENTS_PREFIX.slice(1), id);
      mkdirSync(prefix, { recursive: true });
      for (const file of ["package.json", "package-lock.json"])
        spawnSync("cp", [join(root, "sandbox-agents", id, file), join(prefix, file)]);
      const result = spawnSync(
        "npm",
        ["ci", "--ignore-scripts", "--omit=dev", "--no-audit", "--no-fund", "--loglevel=error"],
        { cwd: prefix, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
      );
      if (result.status !== 0)
        throw new Error(
          `npm ci for the ${id} agent failed (${result.status}):\n${(result.stderr ?? "").trim().split("\n").slice(-15).join("\n")}`,
        );
      log(`installed the ${id} agent in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    warmCompileCache({ rootfs, agentsRoot: join(staging, AGENTS_PREFIX.slice(1)), ids, log });
    readOnlyForOthers(join(staging, AGENTS_PREFIX.slice(1)));
    chmodSync(join(staging, AGENTS_PREFIX.slice(1)), 0o755);
    spawnSync("touch", [join(staging, "complete")]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  }
  for (const name of readdirSync(cacheDir))
    if (/^agents-[0-9a-f]{16}$/.test(name) && name !== `agents-${key}`)
      rmSync(join(cacheDir, name), { recursive: true, force: true });
  return { key, dir, ids };
}

/**
 * A fresh clone (CI) whose engine still holds the agents image made from these very inputs: its top layer is the
 * folder that went into it (`COPY opt/ /opt/`), so reading it back saves the installs and the compile cache's warm
 * runs (about 40 s here). False when there is no such image, leaving nothing behind.
 */
function restoredFromEngine({ dir, tag, log }) {
  if (tag === undefined) return false;
  const started = performance.now();
  const staging = `${dir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  if (!restoreLayerFromImage({ tag, target: staging, which: "top", scratch: `${staging}.save` }))
    return false;
  spawnSync("touch", [join(staging, "complete")]);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  log(`agents layer restored from ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

/** The program an agent's package runs: its one dependency's first `bin`, as a path in the box. */
function agentBin(agentsRoot, id) {
  const own = JSON.parse(readFileSync(join(agentsRoot, id, "package.json"), "utf8"));
  const [name] = Object.keys(own.dependencies ?? {});
  const manifest = JSON.parse(
    readFileSync(join(agentsRoot, id, "node_modules", name, "package.json"), "utf8"),
  );
  const bin = typeof manifest.bin === "string" ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  if (!bin) throw new Error(`the ${id} agent's package ${name} names no program (bin)`);
  return join(AGENTS_PREFIX, id, "node_modules", name, bin);
}

// Run by the box's Node as the box's user: the agent started twice, as a task's turn starts it. First with its
// input closed (it loads its modules and exits, and Node writes their cache at exit), then through an ACP
// `initialize` and `session/new` (what starts the programs it runs for a session, such as Claude Code's CLI), its
// input closed once the session is open so that those programs end and write theirs. Placeholder keys: the
// network is unshared, so nothing leaves. Each step has a deadline; a failure is reported, never fatal.
const WARM_SCRIPT = String.raw`
const { spawn } = require("node:child_process");
const { readdirSync } = require("node:fs");
const bin = process.argv[1];
const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp", NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
  ANTHROPIC_API_KEY: "warm-up", OPENAI_API_KEY: "warm-up", GEMINI_API_KEY: "warm-up" };
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const exited = (child, ms) => new Promise((resolve) => {
  const timer = setTimeout(() => resolve(false), ms);
  child.on("exit", () => { clearTimeout(timer); resolve(true); });
});
// What the agent started lives on after it (pid 1 is bubblewrap's own): wait for it to end and write its cache.
const settle = async (ms) => {
  const others = () => readdirSync("/proc").filter((name) => /^[0-9]+$/.test(name) && name !== "1" && name !== String(process.pid));
  for (const deadline = Date.now() + ms; others().length > 0 && Date.now() < deadline; ) await sleep(100);
};
const main = async () => {
  const closed = spawn(bin, [], { cwd: "/tmp", env, stdio: ["ignore", "ignore", "ignore"] });
  if (!(await exited(closed, 5000))) closed.kill("SIGKILL");
  await settle(5000);
  const child = spawn(bin, [], { cwd: "/tmp", env, stdio: ["pipe", "pipe", "ignore"] });
  let buffer = "";
  const answers = new Map();
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      try { const message = JSON.parse(line); answers.get(message.id)?.(message); } catch {}
    }
  });
  let next = 0;
  const call = (method, params) => new Promise((resolve) => {
    const id = ++next;
    const timer = setTimeout(() => resolve({ error: { message: method + " timed out" } }), 60000);
    answers.set(id, (message) => { clearTimeout(timer); resolve(message); });
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  });
  const init = await call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const session = init.error ? init : await call("session/new", { cwd: "/tmp", mcpServers: [] });
  child.stdin.end();
  if (!(await exited(child, 3000))) child.kill("SIGKILL");
  await settle(10000);
  // Whatever is left ends with the sandbox's process namespace when this program exits.
  process.stdout.write(session.error ? "session: " + session.error.message : "ok", () => process.exit(0));
};
main();
`;

/** Makes the agents' compile cache under `agentsRoot` (skipped, with a line saying so, without bubblewrap). */
function warmCompileCache({ rootfs, agentsRoot, ids, log }) {
  if (spawnSync("bwrap", ["--version"], { stdio: "ignore" }).status !== 0) {
    log("no bubblewrap here: the agents' compile cache is not made (a Node agent starts about 0.5 s slower)");
    return;
  }
  mkdirSync(join(agentsRoot, COMPILE_CACHE_DIR.slice(AGENTS_PREFIX.length + 1)), { recursive: true });
  for (const id of ids) {
    const started = performance.now();
    const result = spawnSync(
      "bwrap",
      [
        "--unshare-all",
        "--unshare-user",
        "--uid",
        String(BOX_UID),
        "--gid",
        String(BOX_GID),
        "--die-with-parent",
        "--ro-bind",
        rootfs,
        "/",
        "--bind",
        agentsRoot,
        AGENTS_PREFIX,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--chdir",
        "/tmp",
        "--setenv",
        "NODE_COMPILE_CACHE",
        COMPILE_CACHE_DIR,
        "/usr/local/bin/node",
        "-e",
        WARM_SCRIPT,
        agentBin(agentsRoot, id),
      ],
      { encoding: "utf8", timeout: 180_000 },
    );
    const said =
      `${result.stdout ?? ""}`.trim() || `${result.stderr ?? ""}`.trim().split("\n").at(-1) || "no answer";
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    log(
      `the ${id} agent's compile cache: ${said === "ok" ? "made" : `made in part (${said})`} in ${seconds} s`,
    );
  }
}
