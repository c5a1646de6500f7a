// Readiness checks after a successful script: an HTTP URL answering 2xx/3xx, a TCP port accepting, or a
// command exiting 0, each retried until its own deadline. While they wait, a progress line every few seconds
// names the checks still pending and their last answers; a failed check is named with its last answer.
import { spawn } from "node:child_process";
import type { EvidenceReadiness, ReadinessCheckResult } from "../../src/evidence/record.js";
import type { ReadinessCheckSpec } from "./handoff.js";

const RETRY_MS = 250;
/** At most one progress line this often while checks wait. */
export const PROGRESS_MS = 5000;
const DETAIL_CHARS = 80;
/** No new attempt starts with less time than this left before the deadline. */
const MIN_ATTEMPT_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Attempt {
  ok: boolean;
  detail: string;
}

// node:http, node:https (and TLS) and node:net load only when a check needs them: most runs have no checks,
// and loading them costs a quiet run a good part of its overhead.
async function tryHttp(url: string, timeoutMs: number): Promise<Attempt> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, detail: "not a valid URL" };
  }
  const client = parsed.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise((resolve) => {
    const request = client.get(parsed, { timeout: timeoutMs }, (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      resolve({ ok: status >= 200 && status < 400, detail: `HTTP ${status}` });
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ ok: false, detail: error.code ?? error.message }),
    );
  });
}

async function tryTcp(host: string, port: number, timeoutMs: number): Promise<Attempt> {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (attempt: Attempt) => {
      socket.destroy();
      resolve(attempt);
    };
    socket.setTimeout(timeoutMs, () => done({ ok: false, detail: "timed out" }));
    socket.on("connect", () => done({ ok: true, detail: "connected" }));
    socket.on("error", (error: NodeJS.ErrnoException) =>
      done({ ok: false, detail: error.code ?? error.message }),
    );
  });
}

function tryCommand(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<Attempt> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", command], { cwd, env, detached: true, stdio: "ignore" });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, detail: error.message });
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (timedOut) resolve({ ok: false, detail: "timed out" });
      else resolve({ ok: code === 0, detail: signal ? `killed by ${signal}` : `exit ${code}` });
    });
  });
}

function describe(check: ReadinessCheckSpec): string {
  if (check.kind === "http") return check.url;
  if (check.kind === "tcp") return `${check.host}:${check.port}`;
  return check.command;
}

export interface ReadinessContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sanitise: (text: string) => string;
  /** Receives progress and failure lines for people watching stderr (without the `baton-runner: ` prefix). */
  report?: (line: string) => void;
}

/** One check's state while it runs, for the progress lines. */
interface Pending {
  check: ReadinessCheckSpec;
  last: Attempt;
  done: boolean;
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** `http http://127.0.0.1:3000/health`: how a check is named in progress and failure lines, sanitised. */
function nameOf(check: ReadinessCheckSpec, sanitise: (text: string) => string): string {
  return `${check.kind} ${shorten(sanitise(describe(check)), DETAIL_CHARS)}`;
}

function lastAnswer(attempt: Attempt, sanitise: (text: string) => string): string {
  return attempt.detail === "not attempted"
    ? "no answer yet"
    : shorten(sanitise(attempt.detail), DETAIL_CHARS);
}

const WANTED: Record<ReadinessCheckSpec["kind"], string> = {
  http: "did not answer 2xx or 3xx",
  tcp: "did not accept a connection",
  command: "did not exit 0",
};

async function runCheck(
  check: ReadinessCheckSpec,
  context: ReadinessContext,
  pending: Pending,
): Promise<ReadinessCheckResult> {
  const started = Date.now();
  const deadline = started + check.deadlineSeconds * 1000;
  let last: Attempt = { ok: false, detail: "not attempted" };
  while (true) {
    const remaining = Math.max(1, deadline - Date.now());
    let attempt: Attempt;
    if (check.kind === "http") attempt = await tryHttp(check.url, remaining);
    else if (check.kind === "tcp") attempt = await tryTcp(check.host, check.port, remaining);
    else attempt = await tryCommand(check.command, context.cwd, context.env, remaining);
    // An attempt cut short by the deadline says less than the answer before it.
    if (attempt.ok || attempt.detail !== "timed out" || last.detail === "not attempted") last = attempt;
    pending.last = last;
    const left = deadline - Date.now();
    if (last.ok || left <= MIN_ATTEMPT_MS) break;
    await sleep(Math.min(RETRY_MS, left));
  }
  pending.done = true;
  return {
    kind: check.kind,
    target: context.sanitise(describe(check)),
    deadlineSeconds: check.deadlineSeconds,
    ok: last.ok,
    durationMs: Date.now() - started,
    detail: context.sanitise(last.detail),
  };
}

/** Runs every check concurrently, each against its own deadline, reporting progress while they wait. */
export async function checkReadiness(
  checks: readonly ReadinessCheckSpec[],
  context: ReadinessContext,
): Promise<EvidenceReadiness> {
  if (checks.length === 0) {
    return {
      status: "unknown",
      note: "the handoff lists no readiness checks, so readiness is unknown",
      checks: [],
    };
  }
  const { report, sanitise } = context;
  const started = Date.now();
  const longest = Math.max(...checks.map((check) => check.deadlineSeconds));
  const states: Pending[] = checks.map((check) => ({
    check,
    last: { ok: false, detail: "not attempted" },
    done: false,
  }));
  report?.(
    `waiting for ${checks.length === 1 ? "1 readiness check" : `${checks.length} readiness checks`} (up to ${longest} s)`,
  );
  const progress = setInterval(() => {
    const waiting = states.filter((state) => !state.done);
    if (waiting.length === 0) return;
    const seconds = Math.round((Date.now() - started) / 1000);
    const names = waiting.map(
      (state) => `${nameOf(state.check, sanitise)} (last: ${lastAnswer(state.last, sanitise)})`,
    );
    report?.(`still waiting after ${seconds} s: ${shorten(names.join("; "), 400)}`);
  }, PROGRESS_MS);
  let results: ReadinessCheckResult[];
  try {
    results = await Promise.all(checks.map((check, i) => runCheck(check, context, states[i]!)));
  } finally {
    clearInterval(progress);
  }
  results.forEach((result, i) => {
    if (result.ok) return;
    const { check, last } = states[i]!;
    report?.(
      `readiness check ${nameOf(check, sanitise)} ${WANTED[check.kind]} within ${check.deadlineSeconds} s; last answer: ${lastAnswer(last, sanitise)}`,
    );
  });
  const failed = results.filter((result) => !result.ok).length;
  return failed === 0
    ? { status: "ready", note: `all ${results.length} readiness checks passed`, checks: results }
    : {
        status: "not_ready",
        note: `${failed} of ${results.length} readiness checks failed by their deadline`,
        checks: results,
      };
}

export function readinessNotChecked(reason: string): EvidenceReadiness {
  return { status: "unknown", note: `readiness not checked: ${reason}`, checks: [] };
}
