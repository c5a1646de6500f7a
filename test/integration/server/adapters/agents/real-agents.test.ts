// Real coding agents from the npm registry run whole Baton turns on this machine against fakes of their vendors'
// model APIs (src/testing/fake-models): Claude Code (`@zed-industries/claude-code-acp`) against the Anthropic
// Messages API, Codex (`@zed-industries/codex-acp`) against the OpenAI Responses API. Each is installed from its
// pinned lockfile (sandbox-agents/<id>/, cached), started by the `acp` adapter with Baton's tools with a clean
// environment holding only its key, the fake's address and its entry's CA variables (the fake serves HTTPS from a
// test CA nothing else trusts), and plays one script: read README.md, edit it, run the check, call
// open_pull_request, answer; then a follow-up turn continues the same session.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateCa } from "../../../../../src/proxy/ca/authority.js";
import { issueLeafPem } from "../../../../../src/proxy/ca/leaves.js";
import { createAcpAgentWithTools } from "../../../../../src/server/adapters/agents/acp/index.js";
import {
  type AgentEntry,
  agentArgv,
  findAgentEntry,
  renderAgentFiles,
} from "../../../../../src/server/adapters/agents/catalog.js";
import type { RunTurnInput, TurnResult } from "../../../../../src/server/adapters/agents/port.js";
import {
  type FakeModel,
  type ScriptStep,
  startFakeAnthropic,
  startFakeOpenAIResponses,
} from "../../../../../src/testing/fake-models/index.js";
import { installAgent } from "../../../../helpers/agent-install.js";
import { BATON_BIN } from "../../../../helpers/cli.js";

const KEY = "sk-test-canary-4f1c9e2b7d";
const PR_TITLE = "Greet from Baton in the README";
const FIRST_REPLY = "I updated README.md, the check passed, and I opened a pull request.";
const FOLLOW_UP_REPLY = "Nothing else needs changing.";
const CHECK = "grep -q 'Hello from Baton' README.md && echo readme-check-passed";

interface Case {
  id: "claude-code" | "codex";
  start: (options: { script: ScriptStep[]; tls: { key: string; cert: string } }) => Promise<FakeModel>;
  /** The base URL the agent's SDK wants for the fake. */
  baseUrl: (fake: FakeModel) => string;
  /** The key as it arrives in the entry's header. */
  keyValue: string;
}

const CASES: Case[] = [
  {
    id: "claude-code",
    start: startFakeAnthropic,
    baseUrl: (f) => f.url,
    keyValue: KEY,
  },
  {
    id: "codex",
    start: startFakeOpenAIResponses,
    baseUrl: (f) => `${f.url}/v1`,
    keyValue: `Bearer ${KEY}`,
  },
];

const script = (dir: string): ScriptStep[] => [
  { call: { kind: "read", path: join(dir, "README.md") } },
  { call: { kind: "edit", path: join(dir, "README.md"), oldText: "Hello.", newText: "Hello from Baton." } },
  { call: { kind: "shell", command: CHECK } },
  {
    call: {
      kind: "mcp",
      tool: "open_pull_request",
      args: { title: PR_TITLE, body: "Greets from Baton.", draft: false },
    },
  },
  { text: FIRST_REPLY },
  { text: FOLLOW_UP_REPLY },
];

describe.each(CASES)(
  "$id runs a whole Baton turn against its fake model",
  ({ id, start, baseUrl, keyValue }) => {
    const entry = findAgentEntry(id) as AgentEntry;
    let base: string;
    let dir: string;
    let gitUrl: string;
    let fake: FakeModel;
    let caFile: string;
    let agent: ReturnType<typeof createAcpAgentWithTools>;
    let n = 0;
    const turn = (body: string): RunTurnInput => ({
      task: { id: `task_${id}`, workspaceId: "ws_1", title: "Greet", repo: "acme/api", source: "api" },
      conversation: [
        { id: `msg_${++n}`, role: "user", kind: "message", body, createdAt: "2026-01-01T00:00:00.000Z" },
      ],
      sandbox: {
        id: "sbx_1",
        workdir: base,
        env: {
          ...entry.env,
          [entry.model.keyVariable]: KEY,
          BATON_GIT_URL: gitUrl,
          ...Object.fromEntries(entry.caVariables.map((name) => [name, caFile])),
          ...(entry.model.baseUrlVariable ? { [entry.model.baseUrlVariable]: baseUrl(fake) } : {}),
        },
        secrets: [{ name: entry.model.keyVariable, value: KEY }],
      },
      signal: new AbortController().signal,
    });

    beforeAll(async () => {
      const prefix = await installAgent(entry);
      // Under the temporary folder on purpose: Codex in its `auto` mode cannot run a command with HOME there.
      base = await mkdtemp(join(tmpdir(), `baton-real-agent-${id}-`));
      // The task's folder holds the agent's HOME, and the checkout in it where the service pushes from, cloned
      // from a bare repository standing in for the code host.
      const home = join(base, "home");
      dir = join(home, "checkouts", "acme", "api");
      const bare = join(base, "code-host.git");
      const git = (cwd: string, ...args: string[]) =>
        execFileSync("git", args, {
          cwd,
          stdio: "ignore",
          env: {
            ...process.env,
            GIT_AUTHOR_NAME: "Dev",
            GIT_AUTHOR_EMAIL: "dev@acme.test",
            GIT_COMMITTER_NAME: "Dev",
            GIT_COMMITTER_EMAIL: "dev@acme.test",
          },
        });
      git(base, "init", "--quiet", "--bare", bare);
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, "README.md"), "# Demo\n\nHello.\n");
      git(dir, "init", "--quiet", "--initial-branch", "main");
      git(dir, "add", "--all");
      git(dir, "commit", "--quiet", "-m", "the readme");
      git(dir, "push", "--quiet", bare, "main");
      gitUrl = pathToFileURL(bare).href;
      // HTTPS from a test CA the agent trusts only through its entry's CA variables, as it trusts the proxy's.
      const ca = await generateCa();
      const leaf = await issueLeafPem(ca, ["127.0.0.1"]);
      caFile = join(base, "test-ca.pem");
      await writeFile(caFile, ca.certPem);
      fake = await start({ script: script(dir), tls: { key: leaf.keyPem, cert: leaf.certPem } });
      for (const file of renderAgentFiles(entry, baseUrl(fake))) {
        await mkdir(dirname(join(home, file.path)), { recursive: true });
        await writeFile(join(home, file.path), file.content);
      }
      agent = createAcpAgentWithTools({
        agentName: id,
        argv: agentArgv(entry, prefix),
        timeoutMs: 40_000,
        baseEnv: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: home },
        baton: { command: process.execPath, args: [BATON_BIN] },
        cwd: () => dir,
        ...(entry.sessionMode ? { sessionMode: entry.sessionMode } : {}),
      });
    }, 600_000);
    afterAll(async () => {
      await agent?.close();
      await fake?.close();
      if (base) await rm(base, { recursive: true, force: true });
    });

    it("reads, edits, checks, opens the pull request and answers; a follow-up continues the session", async () => {
      let result: TurnResult | undefined;
      try {
        result = await agent.runTurn(
          turn("Say hello from Baton in the README, run the check and open a PR."),
        );
        expect(result).toEqual(
          expect.objectContaining({
            kind: "reply",
            reply: {
              kind: "response",
              body: FIRST_REPLY,
              // The service pushed the branch and made the disclosure the body (a draft: never activated here).
              pullRequest: expect.objectContaining({
                repo: "acme/api",
                branch: `baton/task_${id}`,
                title: PR_TITLE,
                draft: true,
              }),
            },
          }),
        );
        expect(await readFile(join(dir, "README.md"), "utf8")).toBe("# Demo\n\nHello from Baton.\n");
        const scripted = fake.requests.filter((request) => request.step !== undefined);
        expect(scripted.map((request) => request.step)).toEqual([0, 1, 2, 3, 4]);
        // The check ran and its output went back to the model.
        expect(JSON.stringify(scripted[3]!.body)).toContain("readme-check-passed");
        // Every tool did its work (an agent's own sandbox failing its commands shows here first).
        const failed = result.activity?.filter(
          (record) => record.kind === "tool_call_update" && record.data.status === "failed",
        );
        expect(failed).toEqual([]);
        // The pull request Baton's tool server recorded, with what the model passed to it.
        expect(result.activity).toContainEqual(
          expect.objectContaining({
            kind: "baton_tool",
            data: { tool: "open_pull_request", title: PR_TITLE, body: "Greets from Baton.", draft: false },
          }),
        );
        if (entry.sessionMode)
          expect(result.activity).toContainEqual(
            expect.objectContaining({ kind: "session_mode", data: { modeId: entry.sessionMode } }),
          );
        // Every request, side calls too, carried the key in the entry's header and in no other.
        expect(fake.requests.filter((request) => request.error)).toEqual([]);
        for (const request of fake.requests) {
          expect(request.headers[entry.model.keyHeader]).toBe(keyValue);
          const elsewhere = Object.entries(request.headers).filter(
            ([name, value]) => name !== entry.model.keyHeader && String(value).includes(KEY),
          );
          expect(elsewhere).toEqual([]);
        }
        expect(JSON.stringify(result)).not.toContain(KEY);

        const next = await agent.runTurn(turn("Anything else?"));
        expect(next).toEqual(
          expect.objectContaining({ kind: "reply", reply: { kind: "response", body: FOLLOW_UP_REPLY } }),
        );
        const last = fake.requests.filter((request) => request.step === 5);
        expect(last).toHaveLength(1);
        const context = JSON.stringify(last[0]!.body);
        for (const earlier of ["Say hello from Baton", FIRST_REPLY, "readme-check-passed", "Anything else?"])
          expect(context).toContain(earlier);
      } catch (error) {
        console.error(JSON.stringify({ result, requests: fake.requests }, null, 1).slice(0, 20_000));
        throw error;
      } finally {
        // The whole exchange, to read what the agent sent: BATON_FAKE_MODEL_DUMP=/tmp/dump writes /tmp/dump-<id>.json.
        const dump = process.env.BATON_FAKE_MODEL_DUMP;
        if (dump)
          await writeFile(`${dump}-${id}.json`, JSON.stringify({ result, requests: fake.requests }, null, 1));
      }
    });
  },
);
