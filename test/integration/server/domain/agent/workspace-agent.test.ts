// A workspace's chosen coding agent through the real task engine (issue 34, point 1): the public API over a real
// store (fixtures/seeds/api.json), turns handed to the agent port by the real runtime. Per turn the engine uses
// the workspace's chosen catalog agent, else the operator's default; a running turn keeps its agent; a choice the
// service can no longer run fails the turn saying so. The agents are gated fakes (test/integration/api/
// gated-agent.ts): a real catalog agent runs in a sandbox box with a model key, neither of which runs here, and the
// rule under test is only which agent the engine hands each turn to.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentEntry } from "../../../../../src/server/adapters/agents/catalog.js";
import {
  chooseWorkspaceAgent,
  readWorkspaceAgentSettings,
} from "../../../../../src/server/domain/agent/index.js";
import { findUserByEmail, membershipOf } from "../../../../../src/server/domain/auth/users.js";
import { DomainError } from "../../../../../src/server/domain/errors.js";
import { API_PATHS } from "../../../../../src/server/surfaces/api/wire.js";
import { createGatedAgent, reply } from "../../../api/gated-agent.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "../../../api/harness.js";

const fallback = createGatedAgent();
const catalog: Record<string, ReturnType<typeof createGatedAgent>> = {};
const madeFor: string[] = [];
let h: ApiHarness;
let token: string;

beforeAll(async () => {
  h = await createApiHarness({
    tasks: {
      agent: fallback,
      // The image holds Codex and Gemini CLI (what `npm run sandbox-image -- --agents=codex,gemini` records).
      installedAgents: () => ["codex", "gemini"],
      catalogAgent: (entry: AgentEntry) => {
        madeFor.push(entry.id);
        catalog[entry.id] = createGatedAgent();
        return catalog[entry.id]!;
      },
    },
  });
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  token = await freshToken(h);
});

const deps = () => ({ db: h.db, choices: () => h.app.deps.tasks.agentChoices() });
async function choose(ws: string, agentId: string | null, email = "owner@acme.test") {
  const user = (await findUserByEmail(h.db, email))!;
  const membership = (await membershipOf(h.db, user, ws))!;
  return chooseWorkspaceAgent(deps(), membership, agentId);
}
const start = async (ws: string, prompt: string) => {
  const answer = await h.call("POST", API_PATHS.tasks(ws), { token, body: { prompt } });
  expect(answer.status).toBe(202);
  return answer.body.task.id as string;
};
const turnAt = (agent: ReturnType<typeof createGatedAgent>, taskId: string, what: string) =>
  until(() => agent.waiting(taskId), `a turn of ${taskId} to reach ${what}`);
const agentOf = (id: string) => until(() => catalog[id], `the ${id} agent to be made`);

describe("the agent port routes each turn by the workspace's choice", () => {
  it("a workspace's turn goes to its chosen agent, another workspace's to the operator's default", async () => {
    await choose("ws_acme", "codex");
    const chosenTask = await start("ws_acme", "fix the build");
    const otherTask = await start("ws_0middle", "fix the build too");
    (await turnAt(await agentOf("codex"), chosenTask, "Codex")).answer(reply("Codex fixed it."));
    (await turnAt(fallback, otherTask, "the default")).answer(reply("The default fixed it."));
    await waitForStatus(h, chosenTask, ["replied"]);
    await waitForStatus(h, otherTask, ["replied"]);
    expect(catalog.codex!.turns.map((t) => t.taskId)).toEqual([chosenTask]);
    expect(fallback.turns.map((t) => t.taskId)).not.toContain(chosenTask);
    expect(fallback.turns.map((t) => t.taskId)).toContain(otherTask);
    await choose("ws_acme", null);
  });

  it("a turn running when the choice changes keeps its agent; the task's next turn runs with the new one", async () => {
    await choose("ws_acme", null);
    const id = await start("ws_acme", "write the docs");
    const first = await turnAt(fallback, id, "the default");
    await choose("ws_acme", "gemini");
    first.answer(reply("Docs written by the default."));
    await waitForStatus(h, id, ["replied"]);
    const sent = await h.call("POST", API_PATHS.messages("ws_acme", id), {
      token,
      body: { text: "now add examples" },
    });
    expect(sent.status).toBe(202);
    (await turnAt(await agentOf("gemini"), id, "Gemini CLI")).answer(reply("Examples added."));
    await waitForStatus(h, id, ["replied"]);
    expect(fallback.turns.filter((t) => t.taskId === id)).toHaveLength(1);
    // The new agent is told the whole conversation, the default's reply included.
    expect(catalog.gemini!.turns[0]!.conversation.map((entry) => entry.body)).toEqual([
      "write the docs",
      "Docs written by the default.",
      "now add examples",
    ]);
    await choose("ws_acme", null);
  });

  it("each catalog agent is made once, on its first turn, and kept", () => {
    expect(madeFor.sort()).toEqual(["codex", "gemini"]);
  });

  it("a stored choice the service can no longer run fails the turn, naming the fix, and no agent runs it", async () => {
    // As if the image was rebuilt without opencode after an owner chose it.
    await h.db.run("UPDATE workspaces SET agent_id = 'opencode' WHERE id = 'ws_acme'");
    const before = fallback.turns.length;
    const id = await start("ws_acme", "refactor the parser");
    await waitForStatus(h, id, ["failed"]);
    const messages = (await h.call("GET", API_PATHS.messages("ws_acme", id), { token })).body.messages as {
      body: string;
    }[];
    expect(messages.map((m) => m.body).join("\n")).toContain(
      "this workspace's chosen agent, opencode, is not one this service can run now: an owner or admin picks another in the workspace's settings",
    );
    expect(fallback.turns.length).toBe(before);
    expect(catalog.opencode).toBeUndefined();
    await choose("ws_acme", null);
  });
});

describe("choosing", () => {
  it("a member is refused (forbidden) and the choice stays", async () => {
    await choose("ws_acme", "codex");
    const refused = await choose("ws_acme", "gemini", "dev@acme.test").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe("forbidden");
    expect((refused as DomainError).reason).toBe(
      "only an owner or admin of Acme chooses its coding agent; ask one of them",
    );
    expect((await readWorkspaceAgentSettings(deps(), "ws_acme")).chosen?.id).toBe("codex");
    await choose("ws_acme", null);
  });

  it("an admin may choose, and the choice reads back with the service's default and installed agents", async () => {
    const saved = await choose("ws_acme", "gemini", "unbound@acme.test");
    expect(saved).toEqual({
      chosen: { id: "gemini", name: "Gemini CLI", runnable: true },
      choices: {
        serviceDefault: "the gated agent",
        sandboxes: true,
        installed: [
          { id: "codex", name: "Codex" },
          { id: "gemini", name: "Gemini CLI" },
        ],
      },
    });
    await choose("ws_acme", null);
    expect((await readWorkspaceAgentSettings(deps(), "ws_acme")).chosen).toBeNull();
  });

  it.each([
    [
      "an unknown id",
      "gpt-pilot",
      /^"gpt-pilot" is not a coding agent this service knows: pick the service default/,
    ],
    [
      "an agent the image lacks",
      "opencode",
      /^opencode is not installed in this service's sandbox image: pick/,
    ],
  ])(
    "%s is refused (invalid_request) with what to pick, and nothing is written",
    async (_case, id, reason) => {
      const refused = (await choose("ws_acme", id).catch((error: unknown) => error)) as DomainError;
      expect(refused.code).toBe("invalid_request");
      expect(refused.reason).toMatch(reason);
      expect(refused.reason).toContain("Codex (codex), Gemini CLI (gemini)");
      expect(await h.db.get("SELECT agent_id FROM workspaces WHERE id = 'ws_acme'")).toEqual({
        agent_id: null,
      });
    },
  );
});
