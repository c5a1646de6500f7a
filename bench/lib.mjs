// Small shared helpers for benchmarks: timing, percentiles and one-line figure output.
import { performance } from "node:perf_hooks";

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Runs `fn` `runs` times (after `warmup` runs) and returns sorted durations in milliseconds. */
export async function timeRuns(fn, { runs = 20, warmup = 2 } = {}) {
  for (let i = 0; i < warmup; i++) await fn();
  const durations = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    durations.push(performance.now() - start);
  }
  return durations.sort((a, b) => a - b);
}

export function median(sorted) {
  return percentile(sorted, 50);
}

export function report(label, value, unit, baseline) {
  const ratio = baseline ? `  (${(value / baseline.value).toFixed(2)}x ${baseline.label})` : "";
  console.log(`${label.padEnd(58)} ${value.toFixed(unit === "ms" ? 2 : 1).padStart(10)} ${unit}${ratio}`);
}

/**
 * Prints one goal line, judged on figures measured in the same run: `goal <name>: <figure> (<target>): met|NOT met`.
 * `atMost`: the figure must not exceed `target`; otherwise it must reach it. Returns whether it was met.
 */
export function judge(name, figure, { target, atMost, unit = "x" }) {
  const met = atMost ? figure <= target : figure >= target;
  const shown = (value) => `${value.toFixed(unit === "x" ? 2 : 1)}${unit === "x" ? "x" : ` ${unit}`}`;
  console.log(
    `goal ${name}: ${shown(figure)} (${atMost ? "≤" : "≥"} ${shown(target)}): ${met ? "met" : "NOT met"}`,
  );
  return met;
}
