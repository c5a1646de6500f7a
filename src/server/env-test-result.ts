// What `baton env test` returns (its `--json` document), and the parts both of its ways build alike: a throwaway
// service of its own (env-test.ts) or a named, long-lived `baton serve` (env-test-remote.ts). Each step is timed
// as it runs; the linted `.batonrc.json` and the rehearsal's outcomes fill the same fields either way.
import { BATONRC_FILE, type BatonrcProblem, lintBatonrc } from "../config/batonrc.js";
import { readBatonrcFile } from "../config/batonrc-file.js";
import type { RehearsalOutcome, RehearsalStepName } from "../envtest/rehearsal-wire.js";
import type { DriverName } from "./adapters/sandboxes/driver.js";

export interface EnvTestStep {
  // The host's two steps, then the four the box rehearses in one process.
  name: "lint" | "provision" | RehearsalStepName;
  ok: boolean;
  durationMs: number;
  detail?: string;
}

export interface EnvTestEgress {
  /**
   * `throwaway`: started for this run and stopped with it; `none`: no way out (`--no-proxy`, or a named service
   * without `--proxy-url`); `service`: the egress proxy of the named `baton serve` (`--serve`).
   */
  proxy: "throwaway" | "none" | "service";
  /** `host:port` of the proxy (throwaway: on the host; service: as the box reaches it); null without one. */
  address: string | null;
}

export interface EnvTestResult {
  ok: boolean;
  repository: string;
  driver: DriverName;
  image: string | null;
  egress: EnvTestEgress;
  steps: EnvTestStep[];
  batonrcProblems: BatonrcProblem[];
  evidence: Record<string, unknown> | null;
  disclosure: string | null;
  durationMs: number;
}

type StepWork<T> = () => Promise<{ ok: boolean; detail?: string; value?: T }>;

/** Runs one host step, announcing it first, and records its outcome and time in `result`. */
export function stepRunner(result: EnvTestResult, onStep: ((name: string) => void) | undefined) {
  return async <T>(name: EnvTestStep["name"], work: StepWork<T>) => {
    onStep?.(name);
    const t0 = performance.now();
    const outcome = await work();
    result.steps.push({
      name,
      ok: outcome.ok,
      durationMs: Math.round(performance.now() - t0),
      ...(outcome.detail ? { detail: outcome.detail } : {}),
    });
    return outcome;
  };
}

/** The "lint" step's work: the checkout's `.batonrc.json` as Baton reads it (none is fine). */
export async function lintCheckout(
  result: EnvTestResult,
  checkout: string,
): Promise<{ ok: boolean; detail?: string }> {
  const text = readBatonrcFile(checkout);
  if (text === null) return { ok: true, detail: `no ${BATONRC_FILE}` };
  const linted = lintBatonrc(text);
  if (!linted.ok) result.batonrcProblems = linted.problems;
  return linted.ok ? { ok: true } : { ok: false, detail: `${linted.problems.length} problem(s)` };
}

/** The rehearsal's outcomes as steps, the startup's evidence and the disclosure; passed when both ran well. */
export function recordRehearsal(result: EnvTestResult, outcomes: readonly RehearsalOutcome[]): void {
  for (const outcome of outcomes) {
    result.steps.push({
      name: outcome.step,
      ok: outcome.ok,
      durationMs: outcome.durationMs,
      ...(outcome.detail ? { detail: outcome.detail } : {}),
    });
    if (outcome.step === "startup" && isRecord(outcome.output)) result.evidence = outcome.output;
    if (outcome.step === "disclose" && isRecord(outcome.output))
      result.disclosure = String(outcome.output.markdown ?? "");
  }
  const passed = (name: EnvTestStep["name"]) => outcomes.some((o) => o.step === name && o.ok);
  result.ok = passed("startup") && passed("disclose");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
