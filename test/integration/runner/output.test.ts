// Output handling: 50 MB of output stays bounded and fully counted; a background service holding stdout open
// does not make the runner hang; readiness checks against real loopback sockets and commands.

import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, removeSandboxes, runRunner } from "./sandbox.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  removeSandboxes();
});

function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : 0);
    });
  });
}

describe("runner output", () => {
  it("a script printing 50 MB: every byte and line counted, head and tail kept, evidence within 32 KiB", async () => {
    // 50,000,000 bytes: 500,000 lines of 99 characters plus a newline.
    const line = `${"0123456789".repeat(9)}abcdefghi`;
    const sandbox = makeSandbox({
      script: `echo FIRST-LINE\nyes '${line}' | head -n 500000\necho LAST-LINE\n`,
    });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(0);
    expect(run.record.output.bytes).toBe(50_000_000 + "FIRST-LINE\n".length + "LAST-LINE\n".length);
    expect(run.record.output.lines).toBe(500_002);
    expect(run.record.output.truncated).toBe(true);
    expect(run.record.output.head.startsWith("FIRST-LINE\n")).toBe(true);
    expect(run.record.output.tail.endsWith("LAST-LINE\n")).toBe(true);
    expect(Buffer.byteLength(run.fileText)).toBeLessThanOrEqual(32 * 1024);
  });

  it("does not hang when the script leaves a background service holding stdout open, and says so", async () => {
    const sandbox = makeSandbox({
      script:
        "( while true; do echo service-alive; sleep 0.2; done ) &\necho $! > service.pid\necho started\n",
    });
    const run = await runRunner(sandbox);
    const servicePid = Number(readFileSync(join(sandbox.checkout, "service.pid"), "utf8"));
    cleanups.push(() => {
      try {
        process.kill(servicePid, "SIGKILL");
      } catch {
        // already gone
      }
    });
    expect(run.exitCode).toBe(0);
    expect(run.record.outcome).toBe("succeeded");
    expect(run.record.output.stoppedReadingAfterExit).toBe(true);
    expect(run.record.durationMs).toBeLessThan(10_000);
    expect(run.record.output.head).toContain("started");
  });

  it("readiness: http 2xx, an accepting TCP port and a command exiting 0 make the run ready", async () => {
    const http = createServer((_req, res) => res.writeHead(204).end());
    const tcp = createTcpServer((socket) => socket.end());
    const [httpPort, tcpPort] = [await listen(http), await listen(tcp)];
    cleanups.push(
      () => http.close(),
      () => tcp.close(),
    );
    const sandbox = makeSandbox({
      script: "touch ready.flag\n",
      checks: [
        { kind: "http", url: `http://127.0.0.1:${httpPort}/health`, deadlineSeconds: 5 },
        { kind: "tcp", host: "127.0.0.1", port: tcpPort, deadlineSeconds: 5 },
        { kind: "command", command: "test -f ready.flag", deadlineSeconds: 5 },
      ],
    });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(0);
    expect(run.record.readiness.status).toBe("ready");
    expect(run.record.readiness.checks.map((c) => [c.kind, c.ok])).toEqual([
      ["http", true],
      ["tcp", true],
      ["command", true],
    ]);
    expect(run.record.readiness.checks[0]?.detail).toBe("HTTP 204");
  });

  it("readiness: a check that fails by its deadline makes the outcome not_ready (exit 1), naming it and its last answer", async () => {
    const http = createServer((_req, res) => res.writeHead(503).end());
    const port = await listen(http);
    cleanups.push(() => http.close());
    const secret = "canary-readiness-7f3a9c2e1b";
    const sandbox = makeSandbox({
      script: "true\n",
      secretNames: ["APP_SECRET"],
      checks: [
        // Two seconds, so a loaded machine still gets real answers before the deadline.
        { kind: "http", url: `http://deploy:${secret}@127.0.0.1:${port}/health`, deadlineSeconds: 2 },
        { kind: "command", command: "exit 4", deadlineSeconds: 2 },
      ],
    });
    const run = await runRunner(sandbox, { env: { APP_SECRET: secret } });
    expect(run.exitCode).toBe(1);
    expect(run.record).toMatchObject({ outcome: "not_ready", exitCode: 0, runnerExitStatus: 1 });
    expect(run.record.readiness.status).toBe("not_ready");
    expect(run.record.readiness.checks.map((c) => c.detail)).toEqual(["HTTP 503", "exit 4"]);
    expect(run.record.readiness.checks[0]?.durationMs).toBeGreaterThanOrEqual(1900);
    const lines = run.stderr.split("\n");
    expect(lines).toContain("baton-runner: waiting for 2 readiness checks (up to 2 s)");
    expect(lines).toContain(
      `baton-runner: readiness check http http://deploy:[REDACTED:APP_SECRET]@127.0.0.1:${port}/health did not answer 2xx or 3xx within 2 s; last answer: HTTP 503`,
    );
    expect(lines).toContain(
      "baton-runner: readiness check command exit 4 did not exit 0 within 2 s; last answer: exit 4",
    );
    expect(lines).toContain(`baton-runner: not_ready, exit status 1; evidence in ${sandbox.evidencePath}`);
    expect(run.stderr + run.stdout).not.toContain(secret);
  });

  it("readiness: while checks wait, a progress line every 5 s names what is pending and its last answer", async () => {
    const sandbox = makeSandbox({
      script: "( sleep 6; touch late.flag ) > /dev/null 2>&1 &\n",
      checks: [{ kind: "command", command: "test -f late.flag", deadlineSeconds: 30 }],
    });
    const run = await runRunner(sandbox);
    expect(run.exitCode).toBe(0);
    expect(run.record.readiness.status).toBe("ready");
    const progress = run.stderr.split("\n").filter((line) => line.includes("still waiting"));
    expect(progress[0]).toBe(
      "baton-runner: still waiting after 5 s: command test -f late.flag (last: exit 1)",
    );
    // Never more often than one line in five seconds of waiting.
    const waited = run.record.readiness.checks[0]!.durationMs;
    expect(progress.length).toBeLessThanOrEqual(Math.floor(waited / 5000));
  });

  it("readiness: a service the script started in the background becomes ready before the deadline", async () => {
    const sandbox = makeSandbox({
      script: "( sleep 1; touch late.flag ) > /dev/null 2>&1 &\n",
      checks: [{ kind: "command", command: "test -f late.flag", deadlineSeconds: 10 }],
    });
    const run = await runRunner(sandbox);
    expect(run.record.readiness.status).toBe("ready");
    expect(run.exitCode).toBe(0);
    expect(run.record.readiness.checks[0]?.durationMs).toBeGreaterThanOrEqual(500);
  });
});
