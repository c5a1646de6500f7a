// A reader that closes the pipe early (`baton op get <id> | head -1`) must end the command quietly: no EPIPE
// crash, no stack trace, the command's own exit code. Real pipes, real bash, a real `baton serve`.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import {
  ACTIVATION_SEED,
  createSandbox,
  makeSandboxHome,
  type SandboxHome,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

let serve: ServeHandle;
let home: SandboxHome;
let env: Record<string, string>;
let operationId: string;

beforeAll(async () => {
  serve = await startServe({ seed: ACTIVATION_SEED });
  home = await makeSandboxHome({ "acme/api": "acme-api" });
  env = { ...home.env(await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_pipe" })) };
  const started = await runBaton(["env", "activate", "acme/api", "--no-wait", "--json"], { env });
  expect(started.exitCode, started.stderr).toBe(0);
  operationId = (JSON.parse(started.stdout) as { id: string }).id;
});

afterAll(async () => {
  await serve?.stop();
  await home?.remove();
});

/** Runs baton with stdout a pipe whose reading end is already closed: every write to it fails with EPIPE. */
function startIntoClosedPipe(args: string[]) {
  const child = spawn(process.execPath, [BATON_BIN, ...args], {
    env: { ...process.env, BATON_LOG_LEVEL: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr })),
  );
  return { child, done };
}

function runIntoClosedPipe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return startIntoClosedPipe(args).done;
}

/** A port nothing listens on right now (the listening line that would say which port goes nowhere here). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

describe("a closed stdout ends any command quietly", () => {
  it.each([
    ["op get, text", () => ["op", "get", operationId], 0],
    ["op get, --json", () => ["op", "get", operationId, "--json"], 0],
    ["the main help", () => ["--help"], 0],
    ["a command's help", () => ["env", "activate", "--help"], 0],
    ["an error document", () => ["op", "get", "--json"], 1],
    ["runner path", () => ["runner", "path"], 0],
  ] as const)(
    "%s: the command's exit code, nothing but its own message on stderr",
    async (_what, args, code) => {
      const run = await runIntoClosedPipe([...args()]);
      expect(run.stderr).not.toMatch(/EPIPE|Error:|at .*\(.*:\d+:\d+\)/);
      expect(run.code).toBe(code);
    },
  );

  it("a command that keeps running after its first write (baton serve) keeps serving and stops cleanly", async () => {
    // The listening line fails with EPIPE while the service goes on: the write error must not end it, as it
    // would a command that keeps working after printing (commands that exit at once leave before the error).
    const dir = await mkdtemp(join(tmpdir(), "baton-closed-stdout-"));
    try {
      const port = await freePort();
      const serving = startIntoClosedPipe([
        "serve",
        "--port",
        String(port),
        "--db",
        join(dir, "serve.sqlite"),
      ]);
      const health = await pollUntil(
        () =>
          fetch(`http://127.0.0.1:${port}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        (status) => status === 200 || serving.child.exitCode !== null,
        { timeoutMs: 20_000 },
      );
      expect(health).toBe(200);
      serving.child.kill("SIGTERM");
      const run = await serving.done;
      expect(run.stderr).not.toMatch(/EPIPE|Error:|at .*\(.*:\d+:\d+\)/);
      expect(run.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("`baton op get <id> | head -1` in bash never fails, run after run until a deadline", async () => {
    const deadline = Date.now() + 8_000;
    let runs = 0;
    while (Date.now() < deadline || runs < 5) {
      const result = await execa(
        "bash",
        [
          "-c",
          'set -o pipefail; "$1" "$2" op get "$3" | head -1',
          "pipe",
          process.execPath,
          BATON_BIN,
          operationId,
        ],
        { env: { ...env, PATH: process.env.PATH ?? "" }, reject: false },
      );
      runs++;
      expect(result.stderr, `run ${runs}`).toBe("");
      expect(result.exitCode, `run ${runs}`).toBe(0);
      expect(result.stdout).toBe(`Operation ${operationId}: env.activate acme/api`);
    }
  }, 60_000);
});
