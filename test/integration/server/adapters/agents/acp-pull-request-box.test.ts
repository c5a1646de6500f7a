// The push and the disclosure run where the agent works: with a sandbox box, through `box.exec` and never on the
// service's machine directly. No sandbox driver runs in this suite, so the box here runs each command on this
// machine with the box's variables (a real shell, real git, the built `baton`), recording every call; the drivers'
// own exec is tested with them. The push goes to the box's BATON_GIT_URL, the local code host's bare repository.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AcpAgent,
  createAcpAgentWithTools,
} from "../../../../../src/server/adapters/agents/acp/index.js";
import type { RunTurnInput, SandboxBox } from "../../../../../src/server/adapters/agents/port.js";
import { createLocalCodehost } from "../../../../../src/server/adapters/codehost/local-git.js";
import { spawnStreaming } from "../../../../../src/server/adapters/processes/streaming-process.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { BATON_BIN } from "../../../../helpers/cli.js";
import { openTestStore } from "../../../../helpers/test-store.js";

const AGENT_SCRIPT = join(import.meta.dirname, "..", "..", "..", "..", "helpers", "acp-agent.mjs");
const CANARY = "canary-box-turn-token-5d1e0c9a7b";

let dir: string;
let db: Store;
let agent: AcpAgent;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "acp-pr-box-"));
  db = await openTestStore(dir);
  agent = createAcpAgentWithTools({
    agentName: "scripted-agent",
    argv: [process.execPath, AGENT_SCRIPT],
    timeoutMs: 30_000,
    baseEnv: { PATH: process.env.PATH, HOME: dir },
    baton: { command: process.execPath, args: [BATON_BIN] },
    // The stand-in box's baton is the built CLI on this machine, as the image's is in a real box.
    boxBaton: { command: process.execPath, args: [BATON_BIN] },
  });
});
afterAll(async () => {
  await agent?.close();
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A box that runs on this machine: `baton` is the built CLI, the variables are the box's and the call's only. */
function localBox(env: Record<string, string>, calls: string[][]): SandboxBox {
  return {
    async exec(argv, options) {
      calls.push([...argv]);
      const [command, ...args] = argv[0] === "baton" ? [process.execPath, BATON_BIN, ...argv.slice(1)] : argv;
      const result = await execa(command!, args, {
        env: { PATH: process.env.PATH, BATON_LOG_LEVEL: "", ...env, ...options.env },
        extendEnv: false,
        reject: false,
        timeout: options.timeoutMs,
      });
      return {
        exitCode: result.exitCode ?? 1,
        stdout: String(result.stdout),
        stderr: String(result.stderr),
        timedOut: result.timedOut,
      };
    },
    programPath: () => undefined,
    spawn: (argv, options) =>
      spawnStreaming(argv, {
        cwd: options.cwd ?? env.HOME!,
        env: { PATH: process.env.PATH!, BATON_LOG_LEVEL: "", ...env, ...options.env },
      }),
    home: env.HOME!,
  };
}

describe("open_pull_request in a sandbox box", () => {
  it("the branch is pushed and the disclosure made through box.exec; the body holds no secret of the sandbox", async () => {
    const codehost = createLocalCodehost({ db, root: join(dir, "codehost"), now: () => new Date() });
    const home = join(dir, "box-home");
    const env = {
      HOME: home,
      BATON_CHECKOUT_ROOT: join(home, "checkouts"),
      BATON_GIT_URL: await codehost.gitUrl("ws_1", "acme/api"),
      BATON_TURN_TOKEN: CANARY,
    };
    const calls: string[][] = [];
    const spec = {
      repo: "acme/api",
      files: { "src/fix.ts": "fixed\n" },
      pr: { title: "Fix in the box", body: `notes with ${CANARY}` },
    };
    const input: RunTurnInput = {
      task: { id: "task_box", workspaceId: "ws_1", title: "Fix", repo: "acme/api", source: "api" },
      conversation: [
        {
          id: "msg_1",
          role: "user",
          kind: "message",
          body: `go #change\nchange-spec: ${JSON.stringify(spec)}`,
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      ],
      sandbox: {
        id: "sbx_box",
        workdir: join(dir, "work"),
        env,
        secrets: [{ name: "BATON_TURN_TOKEN", value: CANARY }],
        box: localBox(env, calls),
      },
      signal: new AbortController().signal,
    };
    const result = await agent.runTurn(input);
    expect(result.kind).toBe("reply");
    if (result.kind !== "reply") return;
    const pullRequest = result.reply.pullRequest!;
    expect(pullRequest).toEqual({
      repo: "acme/api",
      branch: "baton/task_box",
      title: "Fix in the box",
      body: expect.stringMatching(/^## Environment disclosure: acme\/api\n/),
      draft: true,
    });
    expect(pullRequest.body).toContain("not activated in this sandbox");
    expect(pullRequest.body).toContain("### Notes from the agent\n\nnotes with [REDACTED:BATON_TURN_TOKEN]");
    expect(pullRequest.body).not.toContain(CANARY);
    // The turn-requests file emptied and read in the box, then the push and the disclosure there.
    expect(calls.map((argv) => argv[0])).toEqual(["sh", "sh", "sh", "baton"]);
    expect(calls[3]!.slice(0, 4)).toEqual(["baton", "disclose", "acme/api", "--json"]);
    const bare = join(dir, "codehost", "ws_1", "acme", "api.git");
    expect((await execa("git", ["--git-dir", bare, "show", "baton/task_box:src/fix.ts"])).stdout).toBe(
      "fixed",
    );
  });

  it("a turn stopped while the service pushes ends `stopped`, not with a pull request", async () => {
    const codehost = createLocalCodehost({ db, root: join(dir, "codehost"), now: () => new Date() });
    const home = join(dir, "stop-home");
    const env = {
      HOME: home,
      BATON_CHECKOUT_ROOT: join(home, "checkouts"),
      BATON_GIT_URL: await codehost.gitUrl("ws_1", "acme/api"),
    };
    const controller = new AbortController();
    const box = localBox(env, []);
    const spec = { repo: "acme/api", files: { "x.txt": "x\n" }, pr: { title: "Stopped" } };
    const result = await agent.runTurn({
      task: { id: "task_stop", workspaceId: "ws_1", title: "Stop", repo: "acme/api", source: "api" },
      conversation: [
        {
          id: "msg_1",
          role: "user",
          kind: "message",
          body: `go #change\nchange-spec: ${JSON.stringify(spec)}`,
          createdAt: "2026-01-01T00:00:00.000Z",
        },
      ],
      sandbox: {
        id: "sbx_stop",
        workdir: join(dir, "stop-work"),
        env,
        secrets: [],
        // The member stops the task while the push runs.
        box: {
          ...box,
          exec: (argv, options) => {
            controller.abort();
            return box.exec(argv, options);
          },
        },
      },
      signal: controller.signal,
    });
    expect(result).toEqual(expect.objectContaining({ kind: "error", code: "stopped" }));
  });
});
