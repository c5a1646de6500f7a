// The `scripted` agent and the local code host together, with real git: a rule that opens a pull request clones
// the bare repository into the sandbox, commits its files on a branch and pushes it; the code host numbers the
// pull request and reports it merged once `main` contains the branch.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunTurnInput } from "../../../../../src/server/adapters/agents/port.js";
import { createScriptedAgent } from "../../../../../src/server/adapters/agents/scripted.js";
import { ScriptedRuleSchema } from "../../../../../src/server/adapters/agents/scripted-rules.js";
import { createLocalCodehost } from "../../../../../src/server/adapters/codehost/local-git.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { openTestStore } from "../../../../helpers/test-store.js";

let dir: string;
let db: Store;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-scripted-"));
  db = await openTestStore(dir);
  await db.run(
    "INSERT INTO workspaces (id, name, created_at) VALUES ('ws_1', 'One', '2026-01-01T00:00:00.000Z')",
  );
});
afterAll(async () => {
  await db.close();
  await rm(dir, { recursive: true, force: true });
});

const rules = [
  { match: "slow", delayMs: 60_000, reply: "late" },
  { match: "ask", kind: "clarify", reply: "Which file, for {prompt}?" },
  { match: "broken", error: "the build is broken" },
  { match: "registry", needsAccess: "npm.acme.test" },
  {
    match: "pr",
    reply: "Opened a pull request.",
    files: { "src/fix.txt": "fixed\n" },
    pullRequest: { title: "Fix it" },
  },
  { reply: "Done: {prompt}", files: { "notes/out.md": "# out\n" } },
].map((r) => ScriptedRuleSchema.parse(r));

const turn = (text: string, workdir: string, signal = new AbortController().signal): RunTurnInput => ({
  task: { id: "task_pr", workspaceId: "ws_1", title: "Fix it", repo: "acme/api", source: "api" },
  conversation: [
    { id: "msg_1", role: "user", kind: "message", body: text, createdAt: "2026-01-01T00:00:00.000Z" },
  ],
  sandbox: { id: "sbx", workdir, env: {}, secrets: [] },
  signal,
});

describe("scripted agent", () => {
  const codehost = () => createLocalCodehost({ db, root: join(dir, "codehost"), now: () => new Date() });
  const agent = () =>
    createScriptedAgent({ rules: async () => rules, gitUrl: (ws, repo) => codehost().gitUrl(ws, repo) });

  it("the first rule whose match is in the last user message decides; {prompt} is that message's first line", async () => {
    expect(await agent().runTurn(turn("please ask me\nsecond line", join(dir, "a")))).toEqual({
      kind: "reply",
      reply: { kind: "clarify", body: "Which file, for please ask me?" },
    });
    expect(await agent().runTurn(turn("it's broken", join(dir, "a")))).toEqual({
      kind: "error",
      code: "agent_failed",
      reason: "the build is broken",
    });
    expect(await agent().runTurn(turn("registry", join(dir, "a")))).toEqual({
      kind: "needs_access",
      reason: "npm.acme.test",
    });
  });

  it("files are written in the sandbox and reported as produced", async () => {
    const workdir = join(dir, "files");
    expect(await agent().runTurn(turn("anything", workdir))).toEqual({
      kind: "reply",
      reply: { kind: "response", body: "Done: anything", files: ["notes/out.md"] },
    });
    expect(await readFile(join(workdir, "notes", "out.md"), "utf8")).toBe("# out\n");
  });

  it("a delay honours stop", async () => {
    const controller = new AbortController();
    const running = agent().runTurn(turn("slow", join(dir, "slow"), controller.signal));
    controller.abort();
    expect(await running).toEqual({ kind: "error", code: "stopped", reason: "the turn was stopped" });
  });

  it("a pull request: branch pushed to the bare repository, numbered, merged once main contains it", async () => {
    const workdir = join(dir, "pr");
    const result = await agent().runTurn(turn("open a pr", workdir));
    expect(result).toEqual({
      kind: "reply",
      reply: {
        kind: "response",
        body: "Opened a pull request.",
        pullRequest: { repo: "acme/api", branch: "baton/task_pr", title: "Fix it" },
        files: ["src/fix.txt"],
      },
    });
    const host = codehost();
    const bare = join(dir, "codehost", "ws_1", "acme/api.git");
    const show = await execa("git", ["--git-dir", bare, "show", "baton/task_pr:src/fix.txt"]);
    expect(show.stdout).toBe("fixed");
    const opened = await host.openPullRequest({
      workspaceId: "ws_1",
      repo: "acme/api",
      branch: "baton/task_pr",
      title: "Fix it",
      taskId: "task_pr",
    });
    expect(opened).toEqual({
      number: 1,
      url: expect.stringMatching(/^file:\/\/.*acme\/api\.git#pull\/1$/),
      merged: false,
    });
    expect(
      await host.openPullRequest({
        workspaceId: "ws_1",
        repo: "acme/api",
        branch: "baton/task_pr",
        title: "again",
        taskId: "task_pr",
      }),
    ).toEqual(opened);
    expect(await host.isMerged({ workspaceId: "ws_1", repo: "acme/api", number: 1 })).toBe(false);
    const head = (await execa("git", ["--git-dir", bare, "rev-parse", "baton/task_pr"])).stdout;
    await execa("git", ["--git-dir", bare, "update-ref", "refs/heads/main", head]);
    expect(await host.isMerged({ workspaceId: "ws_1", repo: "acme/api", number: 1 })).toBe(true);
  });

  it("a branch that was never pushed opens no pull request", async () => {
    await expect(
      codehost().openPullRequest({
        workspaceId: "ws_1",
        repo: "acme/api",
        branch: "nope",
        title: "x",
        taskId: "t",
      }),
    ).rejects.toThrow(/branch nope was not pushed to acme\/api/);
  });
});
