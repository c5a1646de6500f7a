// Foundation figures: rendering + writing 1,000 variables, the cost of sourcing that file in bash, and the
// `baton --version` cold start. Each figure is printed with a ratio against a baseline from the same run.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { renderEnvironmentFile } from "../dist/src/envfile/index.js";
import { writeFileAtomic } from "../dist/src/safefs/index.js";
import { median, report, timeRuns } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const node = join(root, "node_modules", ".bin", "node");
const bin = join(root, "dist", "src", "cli", "bin.js");
const home = mkdtempSync(join(tmpdir(), "baton-bench-"));
mkdirSync(join(home, ".baton"), { mode: 0o700 });

try {
  const overlay = {
    revision: 1,
    repositories: [
      {
        repository: "acme/api",
        repositoryId: "r1",
        variables: Array.from({ length: 1000 }, (_, i) => ({
          name: `VAR_${i}`,
          assigned: `VAR_${i}`,
          value: `value ${i} with 'quotes', $dollars and\na second line ${"x".repeat(i % 64)}`,
          source: i % 3 === 0 ? "secret" : "sandbox.env",
        })),
      },
    ],
  };
  const big = join(home, ".baton", "environment.sh");
  const empty = join(home, ".baton", "empty.sh");
  writeFileSync(empty, "");

  // Baseline for the write: a plain (non-atomic, no fsync) writeFileSync of the same bytes.
  const text = renderEnvironmentFile(overlay);
  const plain = median(await timeRuns(() => writeFileSync(join(home, "plain.sh"), text), { runs: 50 }));
  const renderOnly = median(await timeRuns(() => renderEnvironmentFile(overlay), { runs: 50 }));
  const renderWrite = median(
    await timeRuns(() => writeFileAtomic(join(home, ".baton"), big, renderEnvironmentFile(overlay)), {
      runs: 50,
    }),
  );
  const plainBase = { label: "plain writeFileSync", value: plain };
  report("plain writeFileSync of the same bytes (baseline)", plain, "ms");
  report("render 1,000 variables", renderOnly, "ms", plainBase);
  report("render + atomic write (fsync, rename) of 1,000 variables", renderWrite, "ms", plainBase);

  const sourceIn = (file) => () =>
    execFileSync("bash", ["-c", '. "$1"', "bench", file], { env: { HOME: home } });
  const emptySource = median(await timeRuns(sourceIn(empty), { runs: 30 }));
  const bigSource = median(await timeRuns(sourceIn(big), { runs: 30 }));
  report("bash -c '. empty.sh' (baseline)", emptySource, "ms");
  report("bash -c '. environment.sh' with 1,000 variables", bigSource, "ms", {
    label: "empty file",
    value: emptySource,
  });

  // Interleave the two so machine load affects both alike.
  const cold = { node: [], baton: [] };
  for (let i = 0; i < 42; i++) {
    for (const [key, args] of [
      ["node", ["-e", "0"]],
      ["baton", [bin, "--version"]],
    ]) {
      const start = performance.now();
      execFileSync(node, args);
      if (i >= 2) cold[key].push(performance.now() - start);
    }
  }
  const nodeCold = median(cold.node.sort((a, b) => a - b));
  const batonCold = median(cold.baton.sort((a, b) => a - b));
  report("node -e 0 cold start (baseline)", nodeCold, "ms");
  report("baton --version cold start (aim: within 1.5x)", batonCold, "ms", {
    label: "node -e 0",
    value: nodeCold,
  });
} finally {
  rmSync(home, { recursive: true, force: true });
}
