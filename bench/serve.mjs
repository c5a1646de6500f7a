// A real `baton serve` for benchmarks: port 0 on loopback, a temporary SQLite file (or a PostgreSQL URL shared by
// several instances), a seed, `--json`, a random admin token, and sandboxes made through its admin API (on the admin listener). Shared by the activation, server and capability benches.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ADMIN_PATHS, HEADERS } from "../dist/src/transport/wire.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const bin = join(root, "dist", "src", "cli", "bin.js");

/**
 * Starts `baton serve --seed <seed> <args>` (on `databaseUrl` with `secretKeyFile` when given, else a temporary
 * SQLite file; without `seed`, no --seed: a further instance on a database already seeded); resolves once it
 * prints its listening line. Node flags for the service
 * alone (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, to profile it under the bench's load) come from
 * BATON_BENCH_SERVE_NODE_ARGS, split on spaces.
 */
export async function startBenchServe({ seed, args = [], env = {}, databaseUrl, secretKeyFile, adminToken }) {
  const tmp = mkdtempSync(join(tmpdir(), "baton-bench-serve-"));
  adminToken ??= randomBytes(32).toString("hex");
  const store = databaseUrl
    ? ["--database-url", databaseUrl, "--secret-key-file", secretKeyFile, "--work-dir", join(tmp, "work")]
    : ["--db", join(tmp, "serve.sqlite")];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs(),
      bin,
      "serve",
      "--port",
      "0",
      ...store,
      ...(seed ? ["--seed", seed] : []),
      "--json",
      ...args,
    ],
    {
      env: { ...process.env, ...env, BATON_ADMIN_TOKEN: adminToken, BATON_LOG_LEVEL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // The service logs at info by default (its audit log): that cost is measured, but only warnings and errors
  // reach the bench's output, so the figures stay readable.
  createInterface({ input: child.stderr }).on("line", (text) => {
    const level = /^\{"level":(\d+)/.exec(text)?.[1];
    if (level === undefined || Number(level) >= 40) process.stderr.write(`${text}\n`);
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(tmp, { recursive: true, force: true });
  };
  let url;
  let opsUrl;
  let adminUrl;
  try {
    const line = await Promise.race([
      new Promise((resolve) => createInterface({ input: child.stdout }).once("line", resolve)),
      exited.then((code) => Promise.reject(new Error(`baton serve exited (${code}) before listening`))),
    ]);
    // Three listeners: public (url), sandbox (opsUrl: /ops/v1 only), admin (adminUrl).
    ({ url, opsUrl, adminUrl } = JSON.parse(line));
  } catch (error) {
    await stop();
    throw error;
  }

  /** POST /admin/v1/sandboxes; resolves with the service's answer (lease, turnToken, env, ...). */
  const createSandbox = async (body) => {
    const response = await fetch(`${adminUrl}${ADMIN_PATHS.sandboxes}`, {
      method: "POST",
      headers: { "content-type": "application/json", [HEADERS.adminToken]: adminToken },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`creating a sandbox answered ${response.status}`);
    return answer;
  };
  return { url, opsUrl, adminUrl, pid: child.pid, adminToken, createSandbox, stop };
}

function nodeArgs() {
  return (process.env.BATON_BENCH_SERVE_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
}

/** The headers an agent in `sandbox` sends to the operations API. */
export function sandboxHeaders(sandbox) {
  return { [HEADERS.authorization]: `Bearer ${sandbox.turnToken}`, [HEADERS.sandboxLease]: sandbox.lease };
}
