// The `command` agent adapter with real bash programs as agents: the turn on stdin, the sandbox's variables, the
// JSON reply on stdout, the time limit and the stop signal ending the whole process group, and sanitised output.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCommandAgent } from "../../../../../src/server/adapters/agents/command.js";
import type { RunTurnInput } from "../../../../../src/server/adapters/agents/port.js";

const TURN_TOKEN = "btt_canary-turn-token-4f1e9a7c2b-never-print";
const LEASE = "btl_canary-lease-8d3b6e0a51-never-print";
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-agent-command-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function program(name: string, body: string): Promise<string[]> {
  const path = join(dir, `${name}.sh`);
  await writeFile(path, `set -u\n${body}\n`);
  return ["bash", path];
}

function turn(signal = new AbortController().signal): RunTurnInput {
  return {
    task: { id: "task_1", workspaceId: "ws_1", title: "Fix it", repo: "acme/api", source: "api" },
    conversation: [
      {
        id: "msg_1",
        role: "user",
        kind: "message",
        body: "fix the build",
        createdAt: "2026-01-01T00:00:00.000Z",
      },
      {
        id: "agt_1",
        role: "agent",
        kind: "clarify",
        body: "which build?",
        createdAt: "2026-01-01T00:00:01.000Z",
      },
      {
        id: "msg_2",
        role: "user",
        kind: "message",
        body: "the api one",
        createdAt: "2026-01-01T00:00:02.000Z",
      },
    ],
    sandbox: {
      id: "sbx_1",
      workdir: dir,
      env: {
        BATON_TASK_ID: "task_1",
        BATON_TURN_TOKEN: TURN_TOKEN,
        BATON_SANDBOX_LEASE: LEASE,
        BATON_OPS_URL: "http://127.0.0.1:9",
      },
      secrets: [
        { name: "BATON_TURN_TOKEN", value: TURN_TOKEN },
        { name: "BATON_SANDBOX_LEASE", value: LEASE },
      ],
    },
    signal,
  };
}

const agent = (argv: string[], timeoutMs = 20_000, maxStdoutBytes?: number) =>
  createCommandAgent({
    argv,
    timeoutMs,
    baseEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    ...(maxStdoutBytes ? { maxStdoutBytes } : {}),
  });

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function until(check: () => boolean | Promise<boolean>, what: string, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("command agent", () => {
  it("gets the conversation on stdin and the sandbox variables; its JSON on stdout is the reply", async () => {
    const argv = await program(
      "echo",
      `input=$(cat)
n=$(printf '%s' "$input" | grep -o '"role"' | wc -l)
printf 'progress noise\\n'
printf '{"kind":"response","body":"%s entries for %s in %s","files":["out.txt"]}\\n' "$n" "$BATON_TASK_ID" "$PWD"`,
    );
    const result = await agent(argv).runTurn(turn());
    expect(result).toEqual({
      kind: "reply",
      reply: { kind: "response", body: `3 entries for task_1 in ${dir}`, files: ["out.txt"] },
    });
  });

  it("a clarify reply, a pull request, an error and a missing access come back as such", async () => {
    const cases: [string, unknown][] = [
      [
        '{"kind":"clarify","body":"Which branch?"}',
        { kind: "reply", reply: { kind: "clarify", body: "Which branch?" } },
      ],
      [
        '{"kind":"response","body":"PR up","pullRequest":{"branch":"fix/build","title":"Fix build"}}',
        {
          kind: "reply",
          reply: {
            kind: "response",
            body: "PR up",
            pullRequest: { branch: "fix/build", title: "Fix build" },
          },
        },
      ],
      [
        '{"error":"tests do not compile"}',
        { kind: "error", code: "agent_failed", reason: "tests do not compile" },
      ],
      [
        '{"needsAccess":"npm registry npm.acme.test"}',
        { kind: "needs_access", reason: "npm registry npm.acme.test" },
      ],
    ];
    for (const [line, expected] of cases) {
      const argv = await program("case", `cat >/dev/null\nprintf '%s\\n' '${line}'`);
      expect(await agent(argv).runTurn(turn())).toEqual(expected);
    }
  });

  it("never lets the sandbox's credentials into the conversation or the pull request (canaries in the reply, its pull request's body and on stderr)", async () => {
    const ok = await program(
      "leak",
      `cat >/dev/null\nprintf '{"kind":"response","body":"token %s lease %s","pullRequest":{"branch":"b","body":"pr %s","draft":true}}\\n' "$BATON_TURN_TOKEN" "$BATON_SANDBOX_LEASE" "$BATON_TURN_TOKEN"`,
    );
    const reply = await agent(ok).runTurn(turn());
    const fail = await program(
      "leak-fail",
      `cat >/dev/null\necho "auth failed with $BATON_TURN_TOKEN" >&2\nexit 3`,
    );
    const failed = await agent(fail).runTurn(turn());
    expect(reply).toMatchObject({
      kind: "reply",
      reply: { pullRequest: { branch: "b", body: "pr [REDACTED:BATON_TURN_TOKEN]", draft: true } },
    });
    const text = JSON.stringify([reply, failed]);
    expect(text).toContain("[REDACTED:BATON_TURN_TOKEN]");
    expect(text).toContain("[REDACTED:BATON_SANDBOX_LEASE]");
    expect(text).not.toContain(TURN_TOKEN);
    expect(text).not.toContain(LEASE);
    expect(failed).toMatchObject({ kind: "error", code: "agent_failed" });
    expect((failed as { reason: string }).reason).toMatch(
      /^the agent program exited with status 3: auth failed with/,
    );
  });

  it.each([
    ["not JSON", "echo done", /last line on stdout is not JSON/],
    ["a reply without body", `printf '%s\\n' '{"kind":"response"}'`, /reply: body:/],
    ["an unknown kind", `printf '%s\\n' '{"kind":"maybe","body":"x"}'`, /reply: kind:/],
    [
      "a branch with ..",
      `printf '%s\\n' '{"kind":"response","body":"x","pullRequest":{"branch":"a/../b"}}'`,
      /pullRequest\.branch/,
    ],
  ])("an invalid reply (%s) fails the turn saying what to print", async (_name, script, reason) => {
    const result = await agent(await program("bad", `cat >/dev/null\n${script}`)).runTurn(turn());
    expect(result).toMatchObject({ kind: "error", code: "invalid_reply" });
    expect((result as { reason: string }).reason).toMatch(reason);
  });

  it("bounds stdout", async () => {
    const argv = await program("flood", "cat >/dev/null\nhead -c 300000 /dev/zero | tr '\\0' 'x'");
    expect(await agent(argv, 20_000, 100_000).runTurn(turn())).toMatchObject({
      kind: "error",
      code: "invalid_reply",
      reason: expect.stringMatching(/more than 100000 bytes/),
    });
  });

  it("a program that cannot start fails the turn", async () => {
    expect(await agent([join(dir, "does-not-exist")]).runTurn(turn())).toMatchObject({
      kind: "error",
      code: "agent_failed",
      reason: expect.stringMatching(/could not start/),
    });
  });

  it("the time limit ends the program and what it started in the background", async () => {
    const pidFile = join(dir, "timeout.pid");
    const argv = await program("slow", `cat >/dev/null\nsleep 300 & echo $! > ${pidFile}\nwait`);
    const result = await agent(argv, 1500).runTurn(turn());
    expect(result).toEqual({
      kind: "error",
      code: "timed_out",
      reason: "the agent program ran past its 2 s limit",
    });
    const pid = Number(await readFile(pidFile, "utf8"));
    await until(() => !pidAlive(pid), "the background sleep to end");
  });

  it("stop aborts the turn: the group gets SIGTERM, then SIGKILL if it ignores it", async () => {
    const pidFile = join(dir, "stop.pid");
    const argv = await program(
      "stubborn",
      `cat >/dev/null\ntrap '' TERM\nsleep 300 & echo $! > ${pidFile}\nwhile true; do sleep 1; done`,
    );
    const controller = new AbortController();
    const running = agent(argv).runTurn(turn(controller.signal));
    await until(() => readFile(pidFile, "utf8").then(Boolean, () => false), "the program to start");
    controller.abort();
    expect(await running).toEqual({ kind: "error", code: "stopped", reason: "the turn was stopped" });
    const pid = Number(await readFile(pidFile, "utf8"));
    await until(() => !pidAlive(pid), "the background sleep to end");
  });
});
