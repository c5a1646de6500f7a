// Runs the startup script under bash in its own process group with a time limit, feeding combined output to
// the capture. Never executes the script file itself.
import { type ChildProcess, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import type { OutputCapture } from "./capture.js";

export const KILL_GRACE_MS = 5000;
/** How long output is still read after the script exits (a background service may hold it open forever). */
export const OUTPUT_GRACE_MS = 1500;

export interface ScriptResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  stoppedReadingAfterExit: boolean;
  spawnError: Error | undefined;
}

export interface Supervision {
  done: Promise<ScriptResult>;
  /** Ends the run early (the runner got a signal): SIGTERM to the group, SIGKILL after the grace period. */
  stop(): void;
  /** For exits that cannot wait (an uncaught runner error): SIGTERM, a short synchronous wait, SIGKILL. */
  stopNow(): void;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function groupAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is gone already.
  }
}

export function superviseScript(options: {
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  capture: OutputCapture;
}): Supervision {
  const child = spawn("bash", [options.script], {
    cwd: options.cwd,
    env: options.env,
    detached: true, // its own process group, so a time-out can end everything it started
    stdio: ["ignore", "pipe", "pipe"],
  });
  const streams = [child.stdout, child.stderr].filter((s): s is Readable => s !== null);
  let timedOut = false;
  let killTimer: NodeJS.Timeout | undefined;
  let terminatedAt: number | undefined;
  const terminate = () => {
    terminatedAt ??= Date.now();
    signalGroup(child, "SIGTERM");
    killTimer ??= setTimeout(() => signalGroup(child, "SIGKILL"), KILL_GRACE_MS);
  };
  /** After a time-out or stop, whatever is left of the group gets the rest of the grace period, then SIGKILL. */
  const endGroup = async () => {
    if (terminatedAt === undefined) return;
    while (groupAlive(child) && Date.now() - terminatedAt < KILL_GRACE_MS) await sleep(50);
    signalGroup(child, "SIGKILL");
    clearTimeout(killTimer);
  };
  const limit = setTimeout(() => {
    timedOut = true;
    terminate();
  }, options.timeoutMs);

  const done = new Promise<ScriptResult>((resolve) => {
    let open = streams.length;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const settle = async (stoppedReadingAfterExit: boolean, spawnError?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      clearTimeout(graceTimer);
      await endGroup();
      for (const stream of streams) {
        stream.removeAllListeners("data");
        stream.destroy();
      }
      child.unref();
      resolve({
        exitCode: exited?.code ?? null,
        signal: exited?.signal ?? null,
        timedOut,
        stoppedReadingAfterExit,
        spawnError,
      });
    };
    for (const stream of streams) {
      stream.on("data", (chunk: Buffer) => options.capture.write(chunk));
      stream.on("error", () => undefined);
      stream.on("close", () => {
        open--;
        if (open === 0 && exited !== undefined) void settle(false);
      });
    }
    child.on("error", (error) => void settle(false, error));
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      if (open === 0) void settle(false);
      else graceTimer = setTimeout(() => void settle(true), OUTPUT_GRACE_MS);
    });
  });
  const stopNow = () => {
    if (!groupAlive(child)) return;
    signalGroup(child, "SIGTERM");
    const until = Date.now() + 2000;
    while (groupAlive(child) && Date.now() < until) sleepSync(20);
    signalGroup(child, "SIGKILL");
  };
  return { done, stop: terminate, stopNow };
}
