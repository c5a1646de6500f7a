// Crash safety: `baton env apply` killed with SIGKILL at random moments while another process keeps reading
// environment.sh. Every read must be a complete file of one revision or the other, never a mix or a prefix.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type Overlay, renderEnvironmentFile } from "../../../src/envfile/index.js";
import { BATON_BIN } from "../../helpers/cli.js";

const RUNS = 200;
const LANES = 2; // two writers at once: halves the wall time; each rename is still all-or-nothing
let home: string;
const children = new Set<ChildProcess>();

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "baton-crash-"));
});
afterEach(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(home, { recursive: true, force: true });
});

function overlayAt(revision: number): Overlay {
  return {
    revision,
    repositories: [
      {
        repository: "acme/api",
        repositoryId: "r1",
        variables: Array.from({ length: 1000 }, (_, i) => ({
          name: `V${i}`,
          assigned: `V${i}`,
          value: `revision ${revision} value ${i} ${"r".repeat(64)}`,
          source: "sandbox.env" as const,
        })),
      },
    ],
  };
}

/** Deterministic pseudo-random delays (mulberry32), so a failure can be replayed with the same seed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function runApply(overlayFile: string, killAfterMs: number | null): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BATON_BIN, "env", "apply", "--overlay", overlayFile], {
      // The compile cache only trims Node's start-up (not what is under test) so 200 runs stay quick.
      env: { HOME: home, PATH: process.env.PATH, NODE_COMPILE_CACHE: join(home, "compile-cache") },
      stdio: "ignore",
    });
    children.add(child);
    const timer = killAfterMs === null ? undefined : setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve(signal ?? code);
    });
  });
}

const READER = `
const fs = require("node:fs");
const [file, a, b, stop] = process.argv.slice(1);
const expected = [fs.readFileSync(a, "utf8"), fs.readFileSync(b, "utf8")];
const seen = [0, 0];
let reads = 0, bad = 0, firstBad = "";
const pause = new Int32Array(new SharedArrayBuffer(4));
const deadline = Date.now() + 290000;
while (!fs.existsSync(stop) && Date.now() < deadline) {
  Atomics.wait(pause, 0, 0, 3);
  const text = fs.readFileSync(file, "utf8");
  reads++;
  const which = expected.indexOf(text);
  if (which === -1) { bad++; if (!firstBad) firstBad = "length " + text.length; } else seen[which]++;
}
process.stdout.write(JSON.stringify({ reads, bad, firstBad, seen }));
`;

it(`survives ${RUNS} SIGKILLs at random moments: every concurrent read is a complete old or new file`, async () => {
  const files = [1, 2].map((revision) => {
    const overlayFile = join(home, `overlay-${revision}.json`);
    writeFileSync(overlayFile, JSON.stringify(overlayAt(revision)));
    const expected = join(home, `expected-${revision}.sh`);
    writeFileSync(expected, renderEnvironmentFile(overlayAt(revision)));
    return { overlayFile, expected };
  });
  const target = join(home, ".baton", "environment.sh");
  expect(await runApply(files[1]!.overlayFile, null)).toBe(0);

  const stop = join(home, "stop");
  const reader = spawn(process.execPath, [
    "-e",
    READER,
    target,
    files[0]!.expected,
    files[1]!.expected,
    stop,
  ]);
  children.add(reader);
  let readerOut = "";
  reader.stdout.on("data", (chunk) => {
    readerOut += chunk;
  });
  const readerDone = new Promise((resolve) => reader.on("exit", resolve));

  // Calibrate with the reader running: how long one full apply takes here, so kills spread over a whole run.
  const durations: number[] = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    expect(await runApply(files[1]!.overlayFile, null)).toBe(0);
    durations.push(performance.now() - start);
  }
  let window = 1.2 * durations.sort((x, y) => x - y)[1]!;

  const seed = 0xba70;
  const next = random(seed);
  const outcomes = { killed: 0, completed: 0, tempsLeft: 0 };
  const expectedTexts = files.map((f) => readFileSync(f.expected, "utf8"));
  await Promise.all(
    Array.from({ length: LANES }, async (_, lane) => {
      for (let i = lane; i < RUNS; i += LANES) {
        const outcome = await runApply(files[i % 2]!.overlayFile, next() * window);
        if (outcome === "SIGKILL") outcomes.killed++;
        else if (outcome === 0) outcomes.completed++;
        else throw new Error(`run ${i} ended with ${String(outcome)}, not 0 or SIGKILL`);
        expect(expectedTexts).toContain(readFileSync(target, "utf8"));
        if (readdirSync(join(home, ".baton")).some((name) => name.endsWith(".tmp"))) outcomes.tempsLeft++;
        // Machine load changes run length; widen the window when almost nothing gets to finish.
        if (i % 20 === 19 && outcomes.completed < (outcomes.killed + outcomes.completed) / 10) window *= 1.5;
      }
    }),
  );

  // A last full write of revision 1 after the reader has seen revision 2: a real transition is observed,
  // and temp files that killed writers left behind are cleared.
  expect(await runApply(files[0]!.overlayFile, null)).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, 100));
  writeFileSync(stop, "");
  await readerDone;
  children.delete(reader);
  const read = JSON.parse(readerOut) as { reads: number; bad: number; firstBad: string; seen: number[] };
  console.info(
    `crash test (seed ${seed}): ${JSON.stringify({ ...outcomes, window: Math.round(window), ...read })}`,
  );

  expect(read.bad).toBe(0);
  expect(outcomes.killed + outcomes.completed).toBe(RUNS);
  expect(outcomes.killed).toBeGreaterThan(RUNS / 4);
  expect(outcomes.completed).toBeGreaterThan(0);
  expect(read.reads).toBeGreaterThan(RUNS);
  expect(read.seen[0]! > 0 && read.seen[1]! > 0).toBe(true);
  expect(readdirSync(join(home, ".baton")).filter((name) => name.endsWith(".tmp"))).toEqual([]);
}, 300_000);
