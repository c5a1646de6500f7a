// Real coding agents from the npm registry (issue 34), each in a Docker box of the real sandbox manager, installed
// in the sandbox image's read-only agents layer, reaching its vendor's model API only through the real `baton
// proxy`: the vendor's host name is pinned by the proxy's config to a fake model server speaking that vendor's
// wire protocol (HTTPS from a test CA only the proxy trusts; the agent trusts the proxy's CA). The fake is the one
// thing faked: no vendor API is reachable from here. The service runs in process on real sockets.
//
// Each agent plays one script: read the README, edit it, run the check (which commits and pushes the task's
// branch), call Baton's open_pull_request, answer. Then a follow-up continues the session, an ask_user ends a turn
// as a clarify and the answer resumes it, and a task on a
// repository without the model key pauses on access with an api_key capability request.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCa } from "../../../src/proxy/ca/authority.js";
import { issueLeafPem } from "../../../src/proxy/ca/leaves.js";
import { type ProxyService, startProxyService } from "../../../src/proxy/service.js";
import {
  AGENTS_IN_BOX,
  type AgentEntry,
  agentArgv,
  findAgentEntry,
} from "../../../src/server/adapters/agents/catalog.js";
import type { SandboxManager } from "../../../src/server/adapters/sandboxes/manager.js";
import { startSandboxManager } from "../../../src/server/adapters/sandboxes/start.js";
import { createServerApp, type ServerApp } from "../../../src/server/app.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import type { Store } from "../../../src/server/store/store.js";
import { createNodeServer } from "../../../src/server/surfaces/http/node-server.js";
import {
  type NamespacedFake,
  type ScriptStep,
  startFakeInNamespace,
} from "../../../src/testing/fake-models/index.js";
import { createNetnsHost, type NetnsHost } from "../../../src/testing/netns.js";
import { pollUntil } from "../../helpers/poll.js";
import { openTestStore } from "../../helpers/test-store.js";

const TOKEN = "btn_real-agents-0000000000000000000";
const WS = "ws_agents";
const CANARY = `canary-model-key-${randomBytes(6).toString("hex")}-never-print`;
const CHECKOUT = "/home/agent/checkouts/acme/api";
const FIRST_REPLY = "I said hello from Baton in the README; the check passed and the pull request is open.";
const FOLLOW_UP_REPLY = "Nothing else: the README already greets from Baton.";
const PR_TITLE = "Greet from Baton";
const QUESTION = "Should the greeting also go into the docs folder?";
const RESUMED_REPLY = "Understood: the README only.";

interface Case {
  id: "claude-code" | "codex";
  api: "anthropic" | "openai-responses";
  /** How the key arrives in the entry's header. */
  keyValue: string;
}
const CASES: Case[] = [
  { id: "claude-code", api: "anthropic", keyValue: CANARY },
  { id: "codex", api: "openai-responses", keyValue: `Bearer ${CANARY}` },
];

const CHECK = [
  "grep -q 'Hello from Baton' README.md && echo readme-check-passed",
  "git add -A",
  "git -c user.name=Agent -c user.email=agent@acme.test commit -qm 'Greet from Baton'",
  "git push -q origin HEAD",
].join(" && ");

const SCRIPT: ScriptStep[] = [
  { call: { kind: "read", path: `${CHECKOUT}/README.md` } },
  {
    call: { kind: "edit", path: `${CHECKOUT}/README.md`, oldText: "Hello.", newText: "Hello from Baton." },
  },
  { call: { kind: "shell", command: CHECK } },
  {
    call: {
      kind: "mcp",
      tool: "open_pull_request",
      args: { title: PR_TITLE, body: "Greets.", draft: false },
    },
  },
  { text: FIRST_REPLY },
  { text: FOLLOW_UP_REPLY },
  // A question for the person through Baton's ask_user: the turn ends as a clarify; the answer resumes.
  { call: { kind: "mcp", tool: "ask_user", args: { question: QUESTION } } },
  { text: "I asked before touching anything else." },
  { text: RESUMED_REPLY },
  // The stop case: a tool call that would run for two minutes.
  { call: { kind: "shell", command: "touch /tmp/slow-started && sleep 120" } },
  { text: "This answer comes too late." },
];

describe.each(CASES)("$id in a Docker box through baton proxy", ({ id, api: modelApi, keyValue }) => {
  const entry = findAgentEntry(id) as AgentEntry;
  const tmp = mkdtempSync(join(tmpdir(), `baton-real-agent-box-${id}-`));
  const logFile = join(tmp, "service.log");
  const sandboxes: { current?: SandboxManager } = {};
  const outputs: string[] = [];
  const servers: Server[] = [];
  let db: Store;
  let app: ServerApp;
  let proxy: ProxyService;
  let upstream: NetnsHost;
  let fake: NamespacedFake;

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await app.http.request(path, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    outputs.push(text);
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const settled = async (taskId: string) => {
    const task = await pollUntil(
      async () => (await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}`)).body,
      (t) => !["pending", "implementing"].includes(t.status),
      { timeoutMs: 240_000, intervalMs: 500 },
    );
    const { messages } = (await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}/messages`)).body;
    return { task, messages: messages as { role: string; kind: string; body: string }[] };
  };
  const listen = async (fetch: (request: Request) => Response | Promise<Response>) => {
    const server = createNodeServer(fetch);
    servers.push(server);
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const address = server.address();
    return typeof address === "object" && address ? address.port : 0;
  };

  beforeAll(async () => {
    // The fake model at the vendor's host name: a host of its own (a namespace), pinned in the proxy's config.
    upstream = await createNetnsHost();
    const ca = await generateCa();
    const leaf = await issueLeafPem(ca, [entry.model.host]);
    writeFileSync(join(tmp, "upstream-ca.pem"), ca.certPem);
    fake = await startFakeInNamespace(upstream, tmp, {
      api: modelApi,
      script: SCRIPT,
      tls: { key: leaf.keyPem, cert: leaf.certPem },
      port: 443,
    });
    writeFileSync(
      join(tmp, "proxy.json"),
      JSON.stringify({
        allow: [{ name: "fake-model", cidr: [`${upstream.address}/32`] }],
        dns: { hosts: { [entry.model.host]: [upstream.address] } },
        upstreamCaFile: join(tmp, "upstream-ca.pem"),
      }),
    );

    const secretBox = ephemeralSecretBox();
    db = await openTestStore(tmp);
    await applySeed(
      db,
      SeedDocumentSchema.parse({
        workspaces: [
          {
            id: WS,
            name: "Agents",
            rollout: { repositoryEnvironments: true },
            plan: { name: "team", concurrency: 2, queueSize: 3 },
            members: [{ email: "dev@agents.test", role: "owner", name: "Dev", token: TOKEN }],
            repositories: [
              {
                id: "repo_agents_api",
                repository: "acme/api",
                secrets: [{ name: entry.model.keyVariable, value: CANARY, allowedHosts: [entry.model.host] }],
              },
              { id: "repo_agents_nokey", repository: "acme/nokey" },
            ],
            codehost: { connected: true },
          },
        ],
      }),
      new Date(),
      secretBox,
    );
    const proxyToken = randomBytes(32).toString("hex");
    // Every line the service and the proxy log, to a file the canary check reads (no redaction: stricter).
    const logger = pino({ level: "debug" }, pino.destination({ dest: logFile, sync: true }));
    app = createServerApp({
      db,
      logger,
      secretBox,
      sandboxes,
      proxyToken,
      tasks: {
        workRoot: join(tmp, "work"),
        agentAcp: { argv: agentArgv(entry, `${AGENTS_IN_BOX}/${id}`), timeoutMs: 180_000, entry },
        agentEnv: {},
        sandboxManager: () => sandboxes.current,
      },
    });
    const opsPort = await listen(app.listeners.sandbox.fetch);
    const adminPort = await listen(app.listeners.admin.fetch);
    proxy = await startProxyService({
      host: "127.0.0.1",
      port: 0,
      serveUrl: `http://127.0.0.1:${adminPort}`,
      token: proxyToken,
      config: join(tmp, "proxy.json"),
      stateDir: join(tmp, "proxy-state"),
      auditFile: join(tmp, "proxy-audit.log"),
      logger,
    });
    sandboxes.current = await startSandboxManager({
      driver: "docker",
      ops: { host: "127.0.0.1", port: opsPort },
      proxy: new URL(proxy.url).host,
      db,
      logger,
      env: process.env,
      timers: false,
    });
    await app.start();

    // The repositories on the local code host, as their developers pushed them.
    for (const repo of ["acme/api", "acme/nokey"]) {
      const bare = fileURLToPath(await app.deps.tasks.codehost.gitUrl(WS, repo));
      const checkout = mkdtempSync(join(tmp, "push-"));
      writeFileSync(join(checkout, "README.md"), "# Demo\n\nHello.\n");
      const git = (...args: string[]) =>
        execFileSync("git", args, {
          cwd: checkout,
          stdio: "ignore",
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: "Dev",
            GIT_AUTHOR_EMAIL: "dev@agents.test",
            GIT_COMMITTER_NAME: "Dev",
            GIT_COMMITTER_EMAIL: "dev@agents.test",
          },
        });
      git("init", "--quiet", "--initial-branch", "main");
      git("add", "--all");
      git("commit", "--quiet", "-m", "the readme");
      git("push", "--quiet", "--force", bare, "main");
    }
  }, 300_000);

  afterAll(async () => {
    await app?.stop();
    await sandboxes.current?.close();
    await proxy?.stop(1000);
    await fake?.close();
    await upstream?.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    await db?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("edits, checks, opens the pull request and answers; the key reached the model and nothing else", async () => {
    const started = await api("POST", `/v1/workspaces/${WS}/tasks`, {
      prompt: "Say hello from Baton in the README, run the check and open a PR.",
      repo: "acme/api",
    });
    expect(started.status).toBe(202);
    const taskId = started.body.task.id as string;
    const { task, messages } = await settled(taskId);
    try {
      expect(task.status).not.toBe("failed");
      const agentReplies = messages.filter((m) => m.role === "agent");
      // Exactly one agent reply for the turn.
      expect(agentReplies.map((m) => m.body)).toEqual([FIRST_REPLY]);
      expect(task.pullRequest?.url).toMatch(/#pull\/\d+$/);
      // The branch reached the code host with the agent's edit.
      const bare = fileURLToPath(await app.deps.tasks.codehost.gitUrl(WS, "acme/api"));
      const readme = execFileSync("git", ["--git-dir", bare, "show", `baton/${taskId}:README.md`], {
        encoding: "utf8",
      });
      expect(readme).toBe("# Demo\n\nHello from Baton.\n");
      // The fake saw every step, the key in the vendor's header only, the check's output.
      const scripted = fake.requests().filter((request) => request.step !== undefined);
      expect(scripted.map((request) => request.step)).toEqual([0, 1, 2, 3, 4]);
      expect(JSON.stringify(scripted[3]!.body)).toContain("readme-check-passed");
      expect(fake.requests().filter((request) => request.error)).toEqual([]);
      for (const request of fake.requests()) {
        expect(request.headers[entry.model.keyHeader]).toBe(keyValue);
        const elsewhere = Object.entries(request.headers).filter(
          ([name, value]) => name !== entry.model.keyHeader && String(value).includes(CANARY),
        );
        expect(elsewhere).toEqual([]);
      }
    } catch (error) {
      console.error(JSON.stringify({ task, messages, requests: fake.requests() }, null, 1).slice(0, 20_000));
      throw error;
    }

    // The follow-up continues the session: the fake's request holds the first turn.
    const followed = await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, {
      text: "Anything else?",
    });
    expect(followed.status).toBeLessThan(300);
    const after = await pollUntil(
      () => settled(taskId),
      (s) => s.messages.filter((m) => m.role === "agent").length >= 2 || s.task.status === "failed",
      { timeoutMs: 240_000, intervalMs: 1000 },
    );
    expect(after.messages.filter((m) => m.role === "agent").map((m) => m.body)).toEqual([
      FIRST_REPLY,
      FOLLOW_UP_REPLY,
    ]);
    const last = fake.requests().filter((request) => request.step === 5);
    expect(last).toHaveLength(1);
    const context = JSON.stringify(last[0]!.body);
    for (const earlier of ["Say hello from Baton", FIRST_REPLY, "Anything else?"])
      expect(context).toContain(earlier);

    // ask_user through Baton's tool server ends the turn as a clarify carrying the question; the answer resumes.
    const replies = async (count: number) =>
      (
        await pollUntil(
          () => settled(taskId),
          (s) => s.messages.filter((m) => m.role === "agent").length >= count || s.task.status === "failed",
          { timeoutMs: 240_000, intervalMs: 1000 },
        )
      ).messages.filter((m) => m.role === "agent");
    await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, { text: "Ask me if unsure." });
    const asked = await replies(3);
    expect(asked[2]).toMatchObject({
      kind: "clarify",
      body: `${QUESTION}\n\nI asked before touching anything else.`,
    });
    await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/messages`, { text: "Only the README." });
    const resumed = await replies(4);
    expect(resumed[3]).toMatchObject({ kind: "response", body: RESUMED_REPLY });
    expect(JSON.stringify(fake.requests().find((request) => request.step === 8)?.body)).toContain(
      "Only the README.",
    );

    // The key's value is in no box (its variables, its files), no API answer, no log line.
    const box = (await sandboxes.current!.list(WS)).find(
      (b) => b.engagementId === taskId && b.state !== "deleted",
    );
    const inBox = await sandboxes.current!.exec(
      box!.sandboxId,
      { workspaceId: WS, engagementId: taskId },
      ["bash", "-c", `env; grep -rl ${CANARY} ~ /tmp 2>/dev/null; echo done`],
      { timeoutMs: 30_000 },
    );
    expect(inBox.stdout).toContain("done");
    expect(inBox.stdout).not.toContain(CANARY);
    expect(inBox.stdout).toContain(`${entry.model.keyVariable}=baton-secret-`);
    // What the agent did is stored per turn and readable beside the conversation: its tool calls, never the key.
    const activity = await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}/activity`);
    expect(activity.status).toBe(200);
    expect(JSON.stringify(activity.body)).toContain("tool_call");
    expect(JSON.stringify(activity.body)).toContain("open_pull_request");
    expect(outputs.join("\n")).not.toContain(CANARY);
    expect(readFileSync(logFile, "utf8")).not.toContain(CANARY);
  }, 600_000);

  it("a stop in the middle of a tool call ends the turn within the grace; the agent was sent session/cancel", async () => {
    const started = await api("POST", `/v1/workspaces/${WS}/tasks`, {
      prompt: "Run the slow check.",
      repo: "acme/api",
    });
    expect(started.status).toBe(202);
    const taskId = started.body.task.id as string;
    const owner = { workspaceId: WS, engagementId: taskId };
    // The agent is in its tool call once the file is there.
    await pollUntil(
      async () => {
        const box = (await sandboxes.current!.list(WS)).find((b) => b.engagementId === taskId);
        if (!box || box.state !== "running") return "";
        return (await sandboxes.current!.exec(box.sandboxId, owner, ["ls", "/tmp"], { timeoutMs: 10_000 }))
          .stdout;
      },
      (out) => out.includes("slow-started"),
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const stoppedAt = Date.now();
    expect((await api("POST", `/v1/workspaces/${WS}/tasks/${taskId}/stop`)).status).toBe(202);
    const { task, messages } = await settled(taskId);
    // Within the 10 s grace and a little for the service's own steps, far from the tool call's 120 s.
    expect(Date.now() - stoppedAt).toBeLessThan(20_000);
    expect(task.status).toBe("cancelled");
    expect(messages.filter((m) => m.role === "agent")).toEqual([]);
    // The stopped turn's activity is written once the adapter returns (after the cancel's grace).
    const activity = await pollUntil(
      async () => JSON.stringify((await api("GET", `/v1/workspaces/${WS}/tasks/${taskId}/activity`)).body),
      (text) => text.includes('"kind":"cancel"'),
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(activity).toContain('"kind":"cancel"');
  }, 300_000);

  it("a repository without the model key pauses on access with an api_key request for the model's host", async () => {
    const started = await api("POST", `/v1/workspaces/${WS}/tasks`, {
      prompt: "Say hello.",
      repo: "acme/nokey",
    });
    expect(started.status).toBe(202);
    const { task, messages } = await settled(started.body.task.id);
    expect(task.status).toBe("paused");
    expect(messages.at(-1)?.body).toContain(
      `${entry.name} needs an API key for ${entry.model.host}: add a secret ${entry.model.keyVariable} of acme/nokey`,
    );
    const requests = await api("GET", `/workspaces/${WS}/repos/repo_agents_nokey/capability-requests`);
    expect(JSON.stringify(requests.body)).toContain(entry.model.host);
  }, 300_000);
});
