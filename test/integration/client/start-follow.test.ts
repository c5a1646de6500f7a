// `baton start` and `baton reply` following a task (reference section 4 rules 5 and 6, exit codes), through the
// real binary against a real `baton serve --agent manual`: each case ends the turn as it needs with the admin
// answer route, or a member's stop.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, TOKENS } from "../api/harness.js";
import {
  answerTurn,
  api,
  type ClientUser,
  messagesOf,
  OUTPUTS,
  signIn,
  startedTaskId,
  stopOpenTasks,
  tasksOf,
  WORKSPACE,
} from "./client-harness.js";

let serve: ServeHandle;
let owner: ClientUser;
beforeAll(async () => {
  serve = await startServe({ seed: API_SEED, args: ["--agent", "manual"] });
  owner = await signIn(serve.url, TOKENS.owner);
});
afterEach(async () => {
  await stopOpenTasks(serve, TOKENS.owner);
});
afterAll(async () => {
  for (const token of Object.values(TOKENS))
    expect(OUTPUTS.join("\n"), "a token was printed").not.toContain(token);
  await owner?.remove();
  await serve?.stop();
  await killLeftoverServes();
});

/** The id of the task a spawned `baton start` started, read from what it printed. */
async function taskIdOf(child: ReturnType<ClientUser["spawn"]>): Promise<string> {
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const id = await pollUntil(() => startedTaskId(stderr), Boolean, { timeoutMs: 20_000 });
  if (!id) throw new Error(`no task started:\n${stderr}`);
  return id;
}

describe("baton start follows the task until the turn is done; the exit code is the task's outcome", () => {
  it.each([
    ["reply", "agent: Fixed the parser.", 0, /Turn done \(replied\)\. Reply with: baton reply task_\S+ "…"/],
    ["clarify", "agent asks: Which parser?", 0, /The agent asked a question\. Answer it with: baton reply/],
    [
      "fail",
      "baton error: The turn failed: no tests. Send a follow-up to try again.",
      2,
      /The task failed\./,
    ],
  ] as const)("the agent's %s → exit %s", async (kind, printed, exitCode, closing) => {
    const child = owner.spawn(["start", `fix the parser (${kind})`]);
    const id = await taskIdOf(child);
    const text = { reply: "Fixed the parser.", clarify: "Which parser?", fail: "no tests" }[kind];
    expect((await answerTurn(serve, id, kind, text)).status).toBe(200);
    const run = await child;
    expect(run.exitCode).toBe(exitCode);
    // Each entry once; the run's own prompt is not echoed back.
    expect(String(run.stdout)).toBe(`${printed}\n`);
    expect(String(run.stderr)).toMatch(closing);
  });

  it("a member's stop cancels the task → exit 2", async () => {
    const child = owner.spawn(["start", "refactor everything"]);
    const id = await taskIdOf(child);
    await pollUntil(
      async () => (await api(serve, "GET", API_PATHS.task(WORKSPACE, id), TOKENS.dev)).body.status,
      (s) => s === "implementing",
      { timeoutMs: 20_000 },
    );
    expect((await api(serve, "POST", API_PATHS.stop(WORKSPACE, id), TOKENS.dev)).status).toBe(202);
    const run = await child;
    expect(run.exitCode).toBe(2);
    expect(String(run.stdout)).toMatch(/^baton: Stopped by /);
    expect(String(run.stderr)).toMatch(/The task was cancelled\./);
  });

  it('"When the timeout passes, exit code 3": the task keeps running', async () => {
    const run = await owner.run(["start", "--timeout", "0.02", "a long job"]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(
      /Still working after 0\.02 minutes; stopped waiting, the task keeps going\. Check later with: baton show task_/,
    );
    const id = startedTaskId(run.stderr)!;
    expect((await api(serve, "GET", API_PATHS.task(WORKSPACE, id), TOKENS.owner)).body.status).toMatch(
      /pending|implementing/,
    );
  });

  it('"Ctrl-C stops waiting and the task keeps going": SIGINT → exit 3 and how to check later', async () => {
    const child = owner.spawn(["start", "watch the build"]);
    const id = await taskIdOf(child);
    child.kill("SIGINT");
    const run = await child;
    expect({ exitCode: run.exitCode, signal: run.signal, stderr: run.stderr }).toMatchObject({ exitCode: 3 });
    expect(String(run.stderr)).toContain(
      `Stopped waiting; the task keeps going. Check it with: baton show ${id}`,
    );
    expect((await api(serve, "GET", API_PATHS.task(WORKSPACE, id), TOKENS.owner)).body.status).toMatch(
      /pending|implementing/,
    );
  });

  it('"it says so when the task is queued" (plan concurrency 2)', async () => {
    for (const prompt of ["first running", "second running"])
      expect((await api(serve, "POST", API_PATHS.tasks(WORKSPACE), TOKENS.dev, { prompt })).status).toBe(202);
    const run = await owner.run(["start", "--timeout", "0.02", "wait your turn"]);
    expect(run.exitCode).toBe(3);
    expect(run.stderr).toMatch(/^Queued: the workspace is running as many tasks as its plan allows/m);
    expect(run.stderr.match(/Queued:/g)).toHaveLength(1);
  });

  it("--no-wait --json prints the API's {task, messageId} and returns at once", async () => {
    const run = await owner.run(["start", "--no-wait", "--json", "-t", "Quick one", "do it later"]);
    expect(run.exitCode).toBe(0);
    const printed = JSON.parse(run.stdout);
    expect(printed).toMatchObject({
      task: { status: "pending", source: "api", title: "Quick one" },
      messageId: expect.any(String),
    });
    const [first] = await messagesOf(serve, printed.task.id, TOKENS.owner);
    expect(first).toMatchObject({ role: "user", body: "do it later", messageId: printed.messageId });
  });

  it("--title=<title> takes a title starting with -; a prompt starting with - goes after --", async () => {
    const run = await owner.run(["start", "--no-wait", "--json", "--title=-draft-", "--", "-v is broken"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).task.title).toBe("-draft-");
    const [first] = await messagesOf(serve, JSON.parse(run.stdout).task.id, TOKENS.owner);
    expect(first.body).toBe("-v is broken");
  });
});

describe('baton "<prompt>" is baton start (rule 1)', () => {
  it.each([
    ["a bare prompt", ["--no-wait", "--json", "fix the login page"], "fix the login page"],
    [
      "a prompt starting with a command word but not its shape",
      ["--no-wait", "--json", "show me the failing tests"],
      "show me the failing tests",
    ],
    [
      "a prompt starting with - after --",
      ["--no-wait", "--json", "--", "-v prints nothing"],
      "-v prints nothing",
    ],
  ])("%s starts a task", async (_what, args, prompt) => {
    const run = await owner.run(args);
    expect(run.exitCode, run.stderr).toBe(0);
    const [first] = await messagesOf(serve, JSON.parse(run.stdout).task.id, TOKENS.owner);
    expect(first.body).toBe(prompt);
  });
});

describe("baton reply follows only what comes after the reply", () => {
  it("a reply to a replied task: the previous turn's answer is not reported; the new one is, then exit 0", async () => {
    const started = await owner.run(["start", "--no-wait", "--json", "first question"]);
    const id = JSON.parse(started.stdout).task.id as string;
    await answerTurn(serve, id, "reply", "The previous answer.");
    const child = owner.spawn(["reply", id, "and a follow-up"]);
    await pollUntil(
      () => messagesOf(serve, id, TOKENS.owner),
      (m) => m.length >= 3,
      { timeoutMs: 20_000 },
    );
    await answerTurn(serve, id, "reply", "The new answer.");
    const run = await child;
    expect(run.exitCode).toBe(0);
    expect(String(run.stdout)).toBe("agent: The new answer.\n");
    expect(String(run.stderr)).toMatch(/Turn done \(replied\)/);
  });

  it("a reply to a failed task is followed to its turn's end (picked up), not ended by the old status", async () => {
    const started = await owner.run(["start", "--no-wait", "--json", "flaky thing"]);
    const id = JSON.parse(started.stdout).task.id as string;
    await answerTurn(serve, id, "fail", "it broke");
    const child = owner.spawn(["reply", id, "try again"]);
    await pollUntil(
      () => messagesOf(serve, id, TOKENS.owner),
      (m) => m.length >= 3,
      { timeoutMs: 20_000 },
    );
    await answerTurn(serve, id, "reply", "Worked this time.");
    const run = await child;
    expect(run.exitCode).toBe(0);
    expect(String(run.stdout)).toBe("agent: Worked this time.\n");
    expect(String(run.stdout)).not.toContain("it broke");
  });

  it('a reply while a turn runs "waits and runs as the next turn": both answers print, following ends with the reply\'s turn', async () => {
    const started = await owner.run(["start", "--no-wait", "--json", "a running turn"]);
    const id = JSON.parse(started.stdout).task.id as string;
    const child = owner.spawn(["reply", id, "also this"]);
    await pollUntil(
      () => messagesOf(serve, id, TOKENS.owner),
      (m) => m.length >= 2,
      { timeoutMs: 20_000 },
    );
    await answerTurn(serve, id, "reply", "First turn done.");
    await pollUntil(
      async () => (await api(serve, "GET", API_PATHS.task(WORKSPACE, id), TOKENS.owner)).body.status,
      (status) => status === "implementing",
      { timeoutMs: 20_000 },
    );
    await answerTurn(serve, id, "reply", "Second turn done.");
    const run = await child;
    expect(run.exitCode).toBe(0);
    expect(String(run.stdout)).toBe("agent: First turn done.\nagent: Second turn done.\n");
  });

  it("--no-wait --json prints {messageId}; the message is in the conversation once", async () => {
    const started = await owner.run(["start", "--no-wait", "--json", "something"]);
    const id = JSON.parse(started.stdout).task.id as string;
    const run = await owner.run(["reply", "--no-wait", "--json", id, "more detail"]);
    expect(run.exitCode).toBe(0);
    const { messageId } = JSON.parse(run.stdout);
    expect(Object.keys(JSON.parse(run.stdout))).toEqual(["messageId"]);
    const mine = (await messagesOf(serve, id, TOKENS.owner)).filter(
      (m: { messageId: string }) => m.messageId === messageId,
    );
    expect(mine).toHaveLength(1);
  });
});

describe("flags and refusals (exit 1)", () => {
  it.each([
    ["--json without --no-wait", ["start", "--json", "x"], /--json goes with --no-wait/],
    ["--timeout 0", ["start", "--timeout", "0", "x"], /--timeout.*greater than 0/],
    [
      "--timeout that is not a number",
      ["reply", "--timeout", "soon", "task_x", "x"],
      /--timeout.*greater than 0/,
    ],
    ["a flag start does not use", ["start", "--status", "open", "x"], /unknown option '--status'/],
    ["a flag reply does not use", ["reply", "-r", "acme/api", "task_x", "x"], /unknown option '-r'/],
    [
      "an unknown task",
      ["reply", "--no-wait", "task_nope", "hello"],
      /no task task_nope in workspace ws_acme/,
    ],
    ["-w of a workspace that is not the user's", ["start", "--no-wait", "-w", "ws_aaa_other", "x"], /404/],
  ])("%s", async (_what, args, message) => {
    const run = await owner.run(args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(message);
  });

  it("at debug log level the token still appears in no output (canary)", async () => {
    const run = await owner.run(["start", "--no-wait", "--json", "log everything"], {
      env: { BATON_LOG_LEVEL: "debug" },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/"msg":"request"/);
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKENS.owner);
  });

  it("not signed in: exit 1 naming baton login", async () => {
    const run = await owner.run(["start", "x"], { env: { XDG_CONFIG_HOME: "/nonexistent-baton-config" } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/baton login/);
    expect((await tasksOf(serve, TOKENS.owner)).some((t) => t.title === "x")).toBe(false);
  });
});
