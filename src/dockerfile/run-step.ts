// Runs one RUN step as its own process group with a timeout, keeping only a sanitised tail of its output.
import { StringDecoder } from "node:string_decoder";
import { execa } from "execa";
import type { OutputSanitiser } from "./sanitise.js";
import { countRedactions } from "./sanitise.js";

export interface StepProcess {
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
}

export interface StepOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  outputTail: string;
  redactions: number;
  /** Why the process could not start (e.g. the program does not exist), already sanitised. */
  spawnError: string | null;
}

export const TAIL_CHARACTERS = 4000;
export const TAIL_LINES = 40;
const KILL_GRACE_MS = 2000;

/** The last lines of sanitised output, at most TAIL_LINES lines and TAIL_CHARACTERS characters. */
export function boundTail(text: string): string {
  let tail = text.length > TAIL_CHARACTERS ? text.slice(-TAIL_CHARACTERS) : text;
  const lines = tail.split("\n");
  if (lines.length > TAIL_LINES + 1) tail = lines.slice(-(TAIL_LINES + 1)).join("\n");
  return tail;
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

export async function runStepProcess(spec: StepProcess, sanitiser: OutputSanitiser): Promise<StepOutcome> {
  const started = performance.now();
  const stream = sanitiser.stream();
  const decoder = new StringDecoder("utf8");
  let kept = "";
  const keep = (text: string) => {
    if (text.length === 0) return;
    kept = (kept + text).slice(-TAIL_CHARACTERS * 2);
  };
  const child = execa(spec.argv[0]!, spec.argv.slice(1), {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    stdin: "ignore",
    all: true,
    buffer: false,
    reject: false,
    // Its own process group, so a timeout (and the end of the step) also stops what the step started.
    detached: true,
    cleanup: true,
  });
  child.all?.on("data", (chunk: Buffer) => keep(stream.push(decoder.write(chunk))));
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid, "SIGTERM");
    killTimer = setTimeout(() => killGroup(child.pid, "SIGKILL"), KILL_GRACE_MS);
  }, spec.timeoutMs);
  const result = await child;
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  // Background processes a step leaves behind end with it, as they would at the end of a build step.
  killGroup(child.pid, "SIGKILL");
  keep(stream.push(decoder.end()));
  keep(stream.flush());
  const failure = result.failed && result.exitCode === undefined && !result.signal && !timedOut;
  const spawnError = failure
    ? sanitiser.sanitise(result.shortMessage ?? "the step could not start").text
    : null;
  return {
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    durationMs: Math.round(performance.now() - started),
    outputTail: boundTail(kept),
    redactions: countRedactions(stream.redactions),
    spawnError,
  };
}
