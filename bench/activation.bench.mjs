// Activation round trip as an agent sees it: from starting `baton env activate acme/web` (no Dockerfile) to the
// process exiting with ~/.baton/environment.sh written, against a real `baton serve` on loopback with a temporary
// SQLite file. Baseline: `baton --version` (the CLI's cold start), measured in the same run.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ADMIN_PATHS, HEADERS } from "../dist/src/transport/wire.js";
import { median, percentile, report, timeRuns } from "./lib.mjs";

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "dist", "src", "cli", "bin.js");
const RUNS = 50;

const tmp = mkdtempSync(join(tmpdir(), "baton-bench-activation-"));
const adminToken = randomBytes(16).toString("hex");
const serve = spawn(
  process.execPath,
  [
    bin,
    "serve",
    "--port",
    "0",
    "--db",
    join(tmp, "serve.sqlite"),
    "--seed",
    join(root, "fixtures", "seeds", "activation.json"),
    "--json",
  ],
  {
    env: { ...process.env, BATON_ADMIN_TOKEN: adminToken, BATON_LOG_LEVEL: "" },
    stdio: ["ignore", "pipe", "inherit"],
  },
);

try {
  const { url } = JSON.parse(
    await new Promise((resolve) => createInterface({ input: serve.stdout }).once("line", resolve)),
  );
  const response = await fetch(`${url}${ADMIN_PATHS.sandboxes}`, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADERS.adminToken]: adminToken },
    body: JSON.stringify({ workspaceId: "ws_acme", engagementId: "bench" }),
  });
  const sandbox = await response.json();

  const version = await timeRuns(() => run(process.execPath, [bin, "--version"]), { runs: RUNS, warmup: 3 });

  let n = 0;
  const activation = await timeRuns(
    async () => {
      const home = join(tmp, `home-${n++}`);
      mkdirSync(home);
      await run(process.execPath, [bin, "env", "activate", "acme/web"], {
        env: { PATH: process.env.PATH, HOME: home, ...sandbox.env },
      });
      if (!existsSync(join(home, ".baton", "environment.sh")))
        throw new Error("environment.sh was not written");
    },
    { runs: RUNS, warmup: 3 },
  );

  const baseline = { label: "baton --version median", value: median(version) };
  report("baton --version: median", median(version), "ms");
  report("baton --version: p95", percentile(version, 95), "ms");
  report(`env activate round trip (no Dockerfile, ${RUNS} runs): median`, median(activation), "ms", baseline);
  report(`env activate round trip (no Dockerfile, ${RUNS} runs): p95`, percentile(activation, 95), "ms", {
    label: "baton --version p95",
    value: percentile(version, 95),
  });
} finally {
  serve.kill("SIGTERM");
  await new Promise((resolve) => serve.once("exit", resolve));
  rmSync(tmp, { recursive: true, force: true });
}
