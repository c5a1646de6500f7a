// Installs a catalog agent's pinned package on this machine for tests, once per lockfile: `npm ci --ignore-scripts`
// from sandbox-agents/<id>/ into node_modules/.cache/baton-agents/<id>-<hash of its package.json and lockfile>.
// A finished install is renamed into place, so a run that died half-way leaves nothing that looks installed.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { AgentEntry } from "../../src/server/adapters/agents/catalog.js";
import { PROJECT_ROOT } from "./cli.js";

const run = promisify(execFile);
export const AGENT_CACHE = join(PROJECT_ROOT, "node_modules", ".cache", "baton-agents");

/** The install prefix of `entry`'s package, installing it first when this lockfile was not installed yet. */
export async function installAgent(entry: AgentEntry): Promise<string> {
  const source = join(PROJECT_ROOT, "sandbox-agents", entry.id);
  const hash = createHash("sha256");
  for (const file of ["package.json", "package-lock.json"]) hash.update(await readFile(join(source, file)));
  const prefix = join(AGENT_CACHE, `${entry.id}-${hash.digest("hex").slice(0, 16)}`);
  if (await exists(join(prefix, "node_modules", ".bin", entry.bin))) return prefix;
  const staging = `${prefix}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  for (const file of ["package.json", "package-lock.json"]) await cp(join(source, file), join(staging, file));
  await run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: staging,
    timeout: 600_000,
  });
  await rm(prefix, { recursive: true, force: true });
  await rename(staging, prefix);
  return prefix;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
