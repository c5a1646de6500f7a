// The routing agent (adapters/agents/routing.ts): each turn goes where `route` says, read when the turn starts;
// catalog agents are made once per id and kept; a task that moves to another agent has its live process on the
// earlier one ended first; a refused route fails the turn with its reason. The agents behind the router are
// recording fakes: the router only chooses, and a real ACP agent needs a box and a model this unit cannot run
// (the ACP adapter has its own tests).
import { describe, expect, it } from "vitest";
import type {
  AgentRunner,
  AgentTask,
  RunTurnInput,
  TurnResult,
} from "../../../../../src/server/adapters/agents/port.js";
import { type AgentRoute, createRoutingAgent } from "../../../../../src/server/adapters/agents/routing.js";

interface Recording extends AgentRunner {
  turns: string[];
  released: string[];
  closed: number;
}

function recordingAgent(name: string): Recording {
  const agent: Recording = {
    name,
    turns: [],
    released: [],
    closed: 0,
    async runTurn(input: RunTurnInput): Promise<TurnResult> {
      agent.turns.push(input.task.id);
      return { kind: "reply", reply: { kind: "response", body: `${name} answered` } };
    },
    async release(taskId) {
      agent.released.push(taskId);
    },
    async close() {
      agent.closed += 1;
    },
  };
  return agent;
}

const task = (id: string, workspaceId: string): AgentTask => ({
  id,
  workspaceId,
  title: null,
  repo: null,
  source: "api",
});
const turn = (t: AgentTask): RunTurnInput => ({
  task: t,
  conversation: [],
  sandbox: { id: "sbx", workdir: "/nowhere", env: {}, secrets: [] },
  signal: new AbortController().signal,
});

/** A router over a default and recording catalog agents, its routes set per workspace by the test. */
function world() {
  const fallback = recordingAgent("default");
  const built: Record<string, Recording> = {};
  const routes = new Map<string, AgentRoute>();
  const router = createRoutingAgent({
    fallback,
    route: async (t) => routes.get(t.workspaceId) ?? { kind: "default" },
    build: (id) => {
      built[id] = recordingAgent(id);
      return built[id];
    },
  });
  return { fallback, built, routes, router };
}

const bodyOf = (result: TurnResult) => (result.kind === "reply" ? result.reply.body : result.reason);

describe("createRoutingAgent", () => {
  it("sends a workspace's turn to its chosen agent and another workspace's to the default", async () => {
    const { fallback, built, routes, router } = world();
    routes.set("ws_chose", { kind: "catalog", id: "codex" });
    expect(bodyOf(await router.runTurn(turn(task("t1", "ws_chose"))))).toBe("codex answered");
    expect(bodyOf(await router.runTurn(turn(task("t2", "ws_default"))))).toBe("default answered");
    expect(built.codex!.turns).toEqual(["t1"]);
    expect(fallback.turns).toEqual(["t2"]);
  });

  it("makes each catalog agent once and keeps it for later turns and other tasks", async () => {
    const made: string[] = [];
    const router = createRoutingAgent({
      fallback: recordingAgent("default"),
      route: async () => ({ kind: "catalog", id: "gemini" }),
      build: (id) => {
        made.push(id);
        return recordingAgent(id);
      },
    });
    for (const id of ["t1", "t1", "t2"]) await router.runTurn(turn(task(id, "ws")));
    expect(made).toEqual(["gemini"]);
  });

  it("reads the route at each turn: a changed choice applies from the task's next turn, ending the earlier agent's process for it", async () => {
    const { fallback, built, routes, router } = world();
    await router.runTurn(turn(task("t1", "ws")));
    routes.set("ws", { kind: "catalog", id: "codex" });
    await router.runTurn(turn(task("t1", "ws")));
    expect(fallback.turns).toEqual(["t1"]);
    expect(built.codex!.turns).toEqual(["t1"]);
    expect(fallback.released).toEqual(["t1"]);
    // The same agent again: nothing is ended.
    await router.runTurn(turn(task("t1", "ws")));
    expect(built.codex!.released).toEqual([]);
    routes.set("ws", { kind: "default" });
    await router.runTurn(turn(task("t1", "ws")));
    expect(built.codex!.released).toEqual(["t1"]);
  });

  it("a refused route fails the turn with its reason and runs no agent", async () => {
    const { fallback, routes, router } = world();
    routes.set("ws", { kind: "refused", reason: "pick another agent in settings" });
    expect(await router.runTurn(turn(task("t1", "ws")))).toEqual({
      kind: "error",
      code: "agent_failed",
      reason: "pick another agent in settings",
    });
    expect(fallback.turns).toEqual([]);
  });

  it("release and close reach the default and every catalog agent made", async () => {
    const { fallback, built, routes, router } = world();
    routes.set("ws", { kind: "catalog", id: "codex" });
    await router.runTurn(turn(task("t1", "ws")));
    await router.release!("t1");
    await router.close!();
    expect(fallback.released).toEqual(["t1"]);
    expect(built.codex!.released).toEqual(["t1"]);
    expect([fallback.closed, built.codex!.closed]).toEqual([1, 1]);
  });
});
