// Issue 24 point 4: the scripted agent (service-side, used by the demo and tests) pushes as the App when the code
// host is real. Real git pushes to a git endpoint on loopback that speaks git's smart HTTP protocol through
// `git http-backend` and, like the code host, takes only Basic `x-access-token:<installation token>`
// (test/helpers/git-upstream.mjs: nothing real is reachable from here). The installation comes from the store and
// the token from the stub App API (codehost-world.ts says why it is a stub). The token reaches git through its
// environment only: never argv, never `.git/config`, never the reply.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunTurnInput } from "../../../../../src/server/adapters/agents/port.js";
import {
  createScriptedAgent,
  ScriptedRuleSchema,
} from "../../../../../src/server/adapters/agents/scripted.js";
import { createGitAuthHeader } from "../../../../../src/server/adapters/codehost/push-access.js";
import { PROJECT_ROOT } from "../../../../helpers/cli.js";
import { pollUntil } from "../../../../helpers/poll.js";
import { CANARY_TOKEN, startWorld, stubApp, type World } from "../../codehost-world.js";

const run = promisify(execFile);
let world: World;
let upstream: ChildProcess;
let port = 0;
const lines: { method: string; url: string; user: string | null; authorized: boolean }[] = [];

beforeAll(async () => {
  world = await startWorld({ app: true });
  const root = join(world.dir, "repos");
  for (const repo of ["acme/api", "acme/web"]) {
    await mkdir(join(root, `${repo}.git`), { recursive: true });
    await run("git", ["init", "--quiet", "--bare", join(root, `${repo}.git`)]);
  }
  await writeFile(join(world.dir, "token"), CANARY_TOKEN, { mode: 0o600 });
  upstream = spawn(
    process.execPath,
    [
      join(PROJECT_ROOT, "test", "helpers", "git-upstream.mjs"),
      "--root",
      root,
      "--token-file",
      join(world.dir, "token"),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  createInterface({ input: upstream.stdout! }).on("line", (line) => {
    const parsed = JSON.parse(line) as { ready?: boolean; port?: number };
    if (parsed.ready) port = parsed.port!;
    else lines.push(parsed as (typeof lines)[number]);
  });
  await pollUntil(
    () => port,
    (p) => p > 0,
    { timeoutMs: 10_000 },
  );
}, 60_000);

afterAll(async () => {
  upstream?.kill("SIGKILL");
  await world?.close();
});

const agent = () =>
  createScriptedAgent({
    rules: async () => [
      ScriptedRuleSchema.parse({
        reply: "pushed",
        files: { "NOTES.md": "from the scripted agent\n" },
        pullRequest: { branch: "baton/app-push" },
      }),
    ],
    gitUrl: async (_, repo) => `http://127.0.0.1:${port}/${repo}.git`,
    gitAuthHeader: createGitAuthHeader(world.db, {
      app: stubApp([], null),
      webUrl: "https://code.acme.test",
    }),
  });

async function turn(repo: string): Promise<RunTurnInput> {
  const workdir = join(world.dir, "sandboxes", repo.replace("/", "-"));
  await mkdir(workdir, { recursive: true });
  return {
    task: { id: "tsk_app_push", workspaceId: "ws_acme", title: "Push", repo, source: "api" },
    conversation: [
      { id: "msg_1", role: "user", kind: "message", body: "push it", createdAt: new Date().toISOString() },
    ],
    sandbox: { id: "sbx_host", workdir, env: {}, secrets: [] },
    signal: new AbortController().signal,
  };
}

/** Every file under `dir`, read as text. */
async function allText(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { recursive: true })) {
    const path = join(dir, entry);
    if ((await stat(path)).isFile()) text += await readFile(path, "latin1");
  }
  return text;
}

describe("the scripted agent pushes as the App's installation", () => {
  it("a repository an installation gives: the branch arrives, every request authorized with the installation token", async () => {
    const input = await turn("acme/api");
    const result = await agent().runTurn(input);
    expect(result).toMatchObject({
      kind: "reply",
      reply: { pullRequest: { repo: "acme/api", branch: "baton/app-push" } },
    });
    const { stdout } = await run("git", [
      "--git-dir",
      join(world.dir, "repos", "acme/api.git"),
      "rev-parse",
      "--verify",
      "refs/heads/baton/app-push",
    ]);
    expect(stdout.trim()).toMatch(/^[0-9a-f]{40}$/);
    const pushes = lines.filter((l) => l.url.includes("/acme/api.git/"));
    expect(pushes.some((l) => l.url.endsWith("git-receive-pack") && l.authorized)).toBe(true);
    expect(pushes.every((l) => l.authorized && l.user === "x-access-token")).toBe(true);
    // Not in the checkout (its .git/config included) nor in the reply.
    expect(await allText(input.sandbox.workdir)).not.toContain(CANARY_TOKEN);
    expect(JSON.stringify(result)).not.toContain(CANARY_TOKEN);
  });

  it("a repository no installation gives: git sends no credentials and the code host refuses the push", async () => {
    await expect(agent().runTurn(await turn("acme/web"))).rejects.toThrow();
    const tried = lines.filter((l) => l.url.includes("/acme/web.git/"));
    expect(tried.length).toBeGreaterThan(0);
    expect(tried.every((l) => l.user === null && !l.authorized)).toBe(true);
  });
});
