// Activation round trip as an agent sees it: from starting `baton env activate acme/web` (no Dockerfile) to the
// process exiting with ~/.baton/environment.sh written, against a real `baton serve` on loopback with a temporary
// SQLite file. Baseline: `baton --version` (the CLI's cold start), measured in the same run, one run of each in
// turn so a change in the machine's load touches both alike. Goal (issue 10, E.22): median under 150 ms and at
// most 4x the baseline's median.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { median, percentile, report } from "./lib.mjs";
import { bin, root, startBenchServe } from "./serve.mjs";

const run = promisify(execFile);
const RUNS = 50;
const WARMUP = 3;
const GOAL_MS = 150;
const GOAL_RATIO = 4;

const serve = await startBenchServe({ seed: join(root, "fixtures", "seeds", "activation.json") });
const tmp = mkdtempSync(join(tmpdir(), "baton-bench-activation-"));

try {
  const sandbox = await serve.createSandbox({ workspaceId: "ws_acme", engagementId: "bench" });
  let n = 0;
  const version = () => run(process.execPath, [bin, "--version"]);
  const activate = async () => {
    const home = join(tmp, `home-${n++}`);
    mkdirSync(join(home, "checkouts", "acme", "web"), { recursive: true });
    await run(process.execPath, [bin, "env", "activate", "acme/web"], {
      env: { PATH: process.env.PATH, HOME: home, ...sandbox.env },
    });
    if (!existsSync(join(home, ".baton", "environment.sh")))
      throw new Error("environment.sh was not written");
  };
  const timed = async (fn) => {
    const start = performance.now();
    await fn();
    return performance.now() - start;
  };

  for (let i = 0; i < WARMUP; i++) {
    await version();
    await activate();
  }
  const versions = [];
  const activations = [];
  for (let i = 0; i < RUNS; i++) {
    versions.push(await timed(version));
    activations.push(await timed(activate));
  }
  versions.sort((a, b) => a - b);
  activations.sort((a, b) => a - b);

  const baseline = { label: "baton --version median", value: median(versions) };
  report("baton --version: median", median(versions), "ms");
  report("baton --version: p95", percentile(versions, 95), "ms");
  report(
    `env activate round trip (no Dockerfile, ${RUNS} runs): median`,
    median(activations),
    "ms",
    baseline,
  );
  report(`env activate round trip (no Dockerfile, ${RUNS} runs): p95`, percentile(activations, 95), "ms", {
    label: "baton --version p95",
    value: percentile(versions, 95),
  });
  const ratio = median(activations) / median(versions);
  const met = median(activations) < GOAL_MS && ratio <= GOAL_RATIO;
  console.log(
    `goal: median under ${GOAL_MS} ms and at most ${GOAL_RATIO}x baton --version: ${met ? "met" : "NOT met"} ` +
      `(${median(activations).toFixed(0)} ms, ${ratio.toFixed(2)}x)`,
  );
} finally {
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
