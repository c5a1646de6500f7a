// Activation round trip as an agent sees it: from starting `baton env activate acme/web` (no Dockerfile) to the
// process exiting with ~/.baton/environment.sh written, against a real `baton serve` on loopback with a temporary
// SQLite file. Baseline: `baton --version` (the CLI's cold start), measured in the same run.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { median, percentile, report, timeRuns } from "./lib.mjs";
import { bin, root, startBenchServe } from "./serve.mjs";

const run = promisify(execFile);
const RUNS = 50;

const serve = await startBenchServe({ seed: join(root, "fixtures", "seeds", "activation.json") });
const tmp = mkdtempSync(join(tmpdir(), "baton-bench-activation-"));

try {
  const sandbox = await serve.createSandbox({ workspaceId: "ws_acme", engagementId: "bench" });

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
  await serve.stop();
  rmSync(tmp, { recursive: true, force: true });
}
