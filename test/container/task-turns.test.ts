// Task turns in sandbox boxes (issue 13 point 5 with `baton serve --sandbox-driver docker|namespace`): a real agent
// program runs inside the task's box, clones the repository from the code host, runs `baton env activate` and
// answers; follow-ups reuse the box, a lost box is recreated with the pinned image, the task's work finishing
// stops the box and a member's stop archives it at once. The repository's `.batonrc.json` (read from the code
// host's default branch) applies at creation and its `sandbox.env` reaches new shells through the overlay, the
// service's repository record winning over the file. The service runs in process on a real socket (boxes reach
// it through their forwarders); the API is called through the handler.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import type { SandboxManager, SandboxView } from "../../src/server/adapters/sandboxes/manager.js";
import { startSandboxManager } from "../../src/server/adapters/sandboxes/start.js";
import { createServerApp, type ServerApp } from "../../src/server/app.js";
import { ephemeralSecretBox } from "../../src/server/domain/secrets/index.js";
import { applySeed } from "../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../src/server/domain/seed/schema.js";
import type { Store } from "../../src/server/store/store.js";
import { createNodeServer } from "../../src/server/surfaces/http/node-server.js";
import { pollUntil } from "../helpers/poll.js";
import { DRIVERS } from "../helpers/sandbox-drivers.js";
import { FIXTURES } from "../helpers/serve.js";
import { openTestStore } from "../helpers/test-store.js";

const TOKEN = "btn_box-dev-0000000000000000000000";
const CANARY = "canary-task-box-3e7a1c9d-never-print";
const WS = "ws_box";

// The agent program: bash in the box. It keeps a turn counter in its home (a reused box remembers it), clones the
// task's repository from the code host once, activates it, reads three variables in a new shell (which sources
// ~/.baton/environment.sh by itself), pushes a branch when asked, and sleeps when told to be slow.
const AGENT = String.raw`#!/bin/bash
set -eu
turn=$(cat)
last=$(printf '%s' "$turn" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).conversation.filter(e=>e.role==="user").at(-1).body))')
n=$(( $(cat ~/turns 2>/dev/null || echo 0) + 1 )); echo "$n" > ~/turns
case "$last" in *slow*) echo started > ~/slow-started; sleep 300;; esac
repo=~/checkouts/acme/api
if [ ! -d "$repo/.git" ]; then git clone --quiet "$BATON_GIT_URL" "$repo"; fi
cd "$repo"
baton env activate acme/api --json > ~/activate.json
seen=$(bash -c 'echo "$FEATURE_FLAGS|$LOG_LEVEL|${"$"}{PAYMENTS_KEY%%_*}"')
pr=""
case "$last" in *"open a pr"*)
  git checkout --quiet -B baton/from-the-box
  echo "turn $n" > TURN.md && git add TURN.md
  git -c user.name=Agent -c user.email=agent@acme.test commit --quiet -m "turn $n"
  git push --quiet origin HEAD:refs/heads/baton/from-the-box
  pr=',"pullRequest":{"branch":"baton/from-the-box"}';;
esac
printf '{"kind":"response","body":"turn %s on %s saw %s"%s}\n' "$n" "$(hostname)" "$seen" "$pr"
`;

describe.each(DRIVERS)("task turns in %s sandboxes", (driverName) => {
  const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-turns-"));
  const sandboxes: { current?: SandboxManager } = {};
  let db: Store;
  let app: ServerApp;
  let server: Server;
  let taskId: string;
  const replies: string[] = [];

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await app.http.request(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    replies.push(text);
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const task = async () => (await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}`)).body;
  /** Waits for the turn to end; returns the task and the conversation's last entry. */
  const settled = async () => {
    const done = await pollUntil(task, (t) => !["pending", "implementing"].includes(t.status), {
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    const { messages } = (await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}/messages`)).body;
    return { task: done, last: messages.at(-1) as { role: string; kind: string; body: string } };
  };
  const boxes = async () => (await sandboxes.current!.list(WS)).filter((b) => b.engagementId === taskId);
  const liveBox = async () => (await boxes()).find((b) => b.state !== "deleted")!;
  const boxState = (sandboxId: string, state: SandboxView["state"]) =>
    pollUntil(
      async () => (await sandboxes.current!.show(sandboxId))!,
      (b) => b.state === state,
      { timeoutMs: 30_000 },
    );
  const hostnameOf = (box: SandboxView) =>
    driverName === "docker" ? box.ref!.slice(0, 12) : "baton-sandbox";
  const loseBox = (box: SandboxView) => {
    // The box disappears outside Baton: its container, or its network namespace.
    if (driverName === "docker") execFileSync("docker", ["rm", "-f", box.ref!], { stdio: "ignore" });
    else execFileSync("ip", ["netns", "del", basename(box.ref!)]);
  };

  beforeAll(async () => {
    const secretBox = ephemeralSecretBox();
    db = await openTestStore(tmp);
    await applySeed(
      db,
      SeedDocumentSchema.parse({
        workspaces: [
          {
            id: WS,
            name: "Box",
            rollout: { repositoryEnvironments: true },
            plan: { name: "team", concurrency: 2, queueSize: 3 },
            members: [{ email: "dev@box.test", role: "owner", name: "Dev", token: TOKEN }],
            repositories: [
              {
                id: "repo_box_api",
                repository: "acme/api",
                sandboxEnv: { LOG_LEVEL: "debug" },
                secrets: [{ name: "PAYMENTS_KEY", value: CANARY, allowedHosts: ["payments.acme.test"] }],
              },
            ],
            codehost: { connected: true },
          },
        ],
      }),
      new Date(),
      secretBox,
    );
    const agent = join(tmp, "agent.sh");
    writeFileSync(agent, AGENT, { mode: 0o755 });
    const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");
    app = createServerApp({
      db,
      logger,
      secretBox,
      sandboxes,
      tasks: {
        workRoot: join(tmp, "work"),
        agentCommand: { argv: [agent], timeoutMs: 120_000 },
        agentEnv: {},
        sandboxManager: () => sandboxes.current,
      },
    });
    // The forwarders' target is the sandbox listener, as in baton serve.
    server = createNodeServer(app.listeners.sandbox.fetch);
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const address = server.address();
    sandboxes.current = await startSandboxManager({
      driver: driverName,
      ops: { host: "127.0.0.1", port: typeof address === "object" && address ? address.port : 0 },
      db,
      logger,
      env: process.env,
      timers: false,
    });
    await app.start();

    // The repository on the code host, as its developers pushed it, with a .batonrc.json.
    const bare = fileURLToPath(await app.deps.tasks.codehost.gitUrl(WS, "acme/api"));
    const checkout = join(tmp, "push");
    cpSync(join(FIXTURES, "repos", "acme-api"), checkout, { recursive: true });
    writeFileSync(
      join(checkout, ".batonrc.json"),
      JSON.stringify({
        sandbox: { env: { FEATURE_FLAGS: "beta", LOG_LEVEL: "trace" } },
        pre_clone: ["echo pre-clone ran > ~/pre-clone.txt"],
      }),
    );
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: checkout,
        stdio: "ignore",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "Dev",
          GIT_AUTHOR_EMAIL: "dev@box.test",
          GIT_COMMITTER_NAME: "Dev",
          GIT_COMMITTER_EMAIL: "dev@box.test",
        },
      });
    git("init", "--quiet", "--initial-branch", "main");
    git("add", "--all");
    git("commit", "--quiet", "-m", "the api");
    git("push", "--quiet", "--force", bare, "main");
  }, 120_000);

  afterAll(async () => {
    await app?.stop();
    await sandboxes.current?.close();
    server?.closeAllConnections();
    server?.close();
    await db?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("runs the agent program in the task's box: it clones, activates and pushes; .batonrc.json applied", async () => {
    const started = await api("POST", `/v1/workspaces/${WS}/tasks`, {
      prompt: "Fix the login page and open a pr",
      repo: "acme/api",
    });
    expect(started.status).toBe(202);
    taskId = started.body.task.id;
    const { task: done, last } = await settled();
    const box = await liveBox();
    // The reply comes from inside the box; the overlay gave FEATURE_FLAGS from .batonrc.json and LOG_LEVEL from
    // the service's repository record (which wins over the file); the secret is a placeholder.
    expect(last).toMatchObject({
      role: "agent",
      kind: "response",
      body: `turn 1 on ${hostnameOf(box)} saw beta|debug|baton-secret-sec`,
    });
    expect(done.status).toBe("pr_open");
    expect(done.pullRequest).toMatchObject({ merged: false });
    expect(box.preClone).toMatchObject([{ exitCode: 0 }]);
    expect(box.repository).toBe("acme/api");
  });

  it("stops the box when the task's work finishes", async () => {
    const box = await boxState((await liveBox()).sandboxId, "stopped");
    expect(box.transitions.map((t) => `${t.from ?? "-"}→${t.to}:${t.reason}`)).toEqual([
      "-→running:created",
      "running→stopped:work_finished",
    ]);
  });

  it("a follow-up reuses the same box, started again", async () => {
    const before = await liveBox();
    expect(
      (await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, { text: "Again" })).status,
    ).toBe(202);
    const { last } = await settled();
    expect(last.body).toBe(`turn 2 on ${hostnameOf(before)} saw beta|debug|baton-secret-sec`);
    const after = await boxState(before.sandboxId, "stopped");
    expect(after.transitions.slice(2).map((t) => `${t.from}→${t.to}:${t.reason}`)).toEqual([
      "stopped→running:activity",
      "running→stopped:work_finished",
    ]);
  });

  it("recreates a lost box with the engagement's pinned image; the lost one is recorded as deleted", async () => {
    const lost = await liveBox();
    loseBox(lost);
    await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, { text: "And once more" });
    const { last } = await settled();
    const fresh = await liveBox();
    expect(fresh.sandboxId).not.toBe(lost.sandboxId);
    expect(fresh.image).toBe(lost.image);
    // A new box: its own counter and checkout, cloned again from the code host.
    expect(last.body).toBe(`turn 1 on ${hostnameOf(fresh)} saw beta|debug|baton-secret-sec`);
    expect((await sandboxes.current!.show(lost.sandboxId))!.transitions.at(-1)).toMatchObject({
      to: "deleted",
      reason: "lost",
    });
  });

  it("a member's stop ends the running agent and archives the box at once", async () => {
    const box = await liveBox();
    await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, { text: "be slow" });
    await pollUntil(
      async () =>
        (
          await sandboxes.current!.exec(
            box.sandboxId,
            { workspaceId: WS, engagementId: taskId },
            ["cat", "slow-started"],
            {
              timeoutMs: 10_000,
            },
          )
        ).stdout,
      (out) => out === "started\n",
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect((await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/stop`)).status).toBe(202);
    const archived = await boxState(box.sandboxId, "archived");
    expect(archived.transitions.at(-1)).toMatchObject({
      from: "running",
      to: "archived",
      reason: "cancelled",
    });
    expect((await task()).status).toBe("cancelled");
  });

  it("never lets the secret's value out: every answer the API gave", () => {
    expect(replies.length).toBeGreaterThan(5);
    for (const text of replies) expect(text).not.toContain(CANARY);
  });
});
