// Readiness checks after a successful script: an HTTP URL answering 2xx/3xx, a TCP port accepting, or a
// command exiting 0, each retried until its own deadline.
import { spawn } from "node:child_process";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { EvidenceReadiness, ReadinessCheckResult } from "../../src/evidence/record.js";
import type { ReadinessCheckSpec } from "./handoff.js";

const RETRY_MS = 250;
/** No new attempt starts with less time than this left before the deadline. */
const MIN_ATTEMPT_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Attempt {
  ok: boolean;
  detail: string;
}

function tryHttp(url: string, timeoutMs: number): Promise<Attempt> {
  return new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      resolve({ ok: false, detail: "not a valid URL" });
      return;
    }
    const client = parsed.protocol === "https:" ? https : http;
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

function tryTcp(host: string, port: number, timeoutMs: number): Promise<Attempt> {
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

async function runCheck(
  check: ReadinessCheckSpec,
  context: { cwd: string; env: NodeJS.ProcessEnv; sanitise: (text: string) => string },
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
    const left = deadline - Date.now();
    if (last.ok || left <= MIN_ATTEMPT_MS) break;
    await sleep(Math.min(RETRY_MS, left));
  }
  return {
    kind: check.kind,
    target: context.sanitise(describe(check)),
    deadlineSeconds: check.deadlineSeconds,
    ok: last.ok,
    durationMs: Date.now() - started,
    detail: context.sanitise(last.detail),
  };
}

/** Runs every check concurrently, each against its own deadline. */
export async function checkReadiness(
  checks: readonly ReadinessCheckSpec[],
  context: { cwd: string; env: NodeJS.ProcessEnv; sanitise: (text: string) => string },
): Promise<EvidenceReadiness> {
  if (checks.length === 0) {
    return {
      status: "unknown",
      note: "the handoff lists no readiness checks, so readiness is unknown",
      checks: [],
    };
  }
  const results = await Promise.all(checks.map((check) => runCheck(check, context)));
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
