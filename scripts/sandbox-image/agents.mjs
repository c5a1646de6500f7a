// The coding agents' layer of the sandbox image: each configured agent's npm package installed from its pinned
// lockfile (sandbox-agents/<id>/, `npm ci`: exact versions, integrity checked, no install scripts) into
// /opt/baton-agents/<id>, owned by root and read-only for the box's user. Cached by the lockfiles: a run whose
// agents and lockfiles did not change installs nothing.
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

export const AGENTS_PREFIX = "/opt/baton-agents";
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
 * Installs `ids` under `<cacheDir>/agents-<key>/opt/baton-agents/<id>` unless that key is there already. The key
 * covers each agent's package.json and lockfile. Returns null when no agent is configured.
 */
export function buildAgentsLayer({ root, cacheDir, ids, log }) {
  if (ids.length === 0) return null;
  const hash = createHash("sha256").update("agents-layer-1");
  for (const id of ids) {
    hash.update(`\0${id}\0`);
    for (const file of ["package.json", "package-lock.json"])
      hash.update(readFileSync(join(root, "sandbox-agents", id, file)));
  }
  const key = hash.digest("hex").slice(0, 16);
  const dir = join(cacheDir, `agents-${key}`);
  if (!existsSync(join(dir, "complete"))) {
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
