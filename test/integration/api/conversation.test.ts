// Reference section 3 "Task" facts, section 4 "GET/POST .../messages", "POST .../stop" and the plan's slots and
// queue (section 8), through app.request(), with an agent the test answers (gated-agent.ts says why).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { createGatedAgent, reply } from "./gated-agent.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "./harness.js";

let h: ApiHarness;
const agent = createGatedAgent();
beforeAll(async () => {
  h = await createApiHarness({ tasks: { agent } });
});
afterAll(async () => {
  await h.close();
});
let token: string;
beforeEach(async () => {
  token = await freshToken(h);
});

const start = async (prompt: string, as = token) => {
  const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), { token: as, body: { prompt } });
  expect(answer.status).toBe(202);
  return answer.body.task.id as string;
};
const send = (taskId: string, text: string, as = token) =>
  h.call("POST", API_PATHS.messages("ws_acme", taskId), { token: as, body: { text } });
const conversation = async (taskId: string) =>
  (await h.call("GET", API_PATHS.messages("ws_acme", taskId), { token })).body.messages as {
    role: string;
    kind: string;
    body: string;
  }[];
const lines = async (taskId: string) =>
  (await conversation(taskId)).map((m) => `${m.role}/${m.kind}: ${m.body}`);
const turnOf = (taskId: string) =>
  until(() => agent.waiting(taskId), `a turn of ${taskId} to reach the agent`);
const task = async (taskId: string) =>
  (await h.call("GET", API_PATHS.task("ws_acme", taskId), { token })).body;
/** Answers every turn that reaches the agent until no turn is open, so a test leaves no slot taken. */
async function drain() {
  const open = async () =>
    (
      (await h.db.get("SELECT count(*) AS n FROM task_turns WHERE state IN ('queued','running')")) as {
        n: number;
      }
    ).n;
  await until(async () => {
    for (const t of agent.turns) t.answer(reply("drained"));
    return (await open()) === 0 || undefined;
  }, "no open turns");
}

describe("a task is a conversation of turns", () => {
  it("the agent posts one reply per turn; a turn is done on reaching replied", async () => {
    const id = await start("fix the build");
    (await turnOf(id)).answer(reply("Fixed it."));
    await waitForStatus(h, id, ["replied"]);
    expect(await lines(id)).toEqual(["user/message: fix the build", "agent/response: Fixed it."]);
  });

  it("a message sent while the agent is working waits and runs as the next turn", async () => {
    const id = await start("first");
    const first = await turnOf(id);
    expect((await task(id)).status).toBe("implementing");
    expect((await send(id, "second")).status).toBe(202);
    expect((await send(id, "third")).status).toBe(202);
    first.answer(reply("answer one"));
    const next = await until(() => agent.turns.find((t) => t !== first && t.taskId === id), "the next turn");
    expect(next.conversation.map((e) => e.body)).toEqual(["first", "second", "third", "answer one"]);
    next.answer(reply("answer two"));
    await waitForStatus(h, id, ["replied"]);
    expect(await lines(id)).toEqual([
      "user/message: first",
      "user/message: second",
      "user/message: third",
      "agent/response: answer one",
      "agent/response: answer two",
    ]);
  });

  it("a task idle for a while resumes when a follow-up arrives", async () => {
    const id = await start("idle then resume");
    (await turnOf(id)).answer(reply("first answer", "clarify"));
    await waitForStatus(h, id, ["replied"]);
    h.clock.offsetMs = 3 * 86_400_000;
    try {
      expect((await send(id, "here is your answer", await freshToken(h))).status).toBe(202);
      expect(["pending", "implementing"]).toContain((await task(id)).status);
      (await turnOf(id)).answer(reply("done now"));
      await waitForStatus(h, id, ["replied"]);
    } finally {
      h.clock.offsetMs = 0;
    }
    expect((await lines(id)).at(-1)).toBe("agent/response: done now");
  });

  it("any workspace member may send a follow-up", async () => {
    const id = await start("mine");
    (await turnOf(id)).answer(reply("ok"));
    await waitForStatus(h, id, ["replied"]);
    expect((await send(id, "from the owner", await freshToken(h, "owner@acme.test"))).status).toBe(202);
    (await turnOf(id)).answer(reply("ok again"));
    await waitForStatus(h, id, ["replied"]);
  });

  it("stop ends the running turn: 202 {accepted: true}, a cancelled turn and a platform message; the task is cancelled", async () => {
    const id = await start("long job");
    await turnOf(id);
    const stopped = await h.call("POST", API_PATHS.stop("ws_acme", id), {
      token: await freshToken(h, "owner@acme.test"),
    });
    expect(stopped).toMatchObject({ status: 202, body: { accepted: true } });
    await waitForStatus(h, id, ["cancelled"]);
    expect(await lines(id)).toEqual([
      "user/message: long job",
      "platform/response: Stopped by Olive Owner. Send a follow-up to continue.",
    ]);
    expect(await h.db.all("SELECT state FROM task_turns WHERE task_id = ?", [id])).toEqual([
      { state: "cancelled" },
    ]);
  });

  it("stop with messages waiting: they are answered by the stop notice, not run", async () => {
    const id = await start("long job two");
    await turnOf(id);
    await send(id, "also this");
    await h.call("POST", API_PATHS.stop("ws_acme", id), { token });
    await waitForStatus(h, id, ["cancelled"]);
    expect((await lines(id)).at(-1)).toBe(
      "platform/response: Stopped by Dev Eloper. 1 message sent during the turn was not run. Send a follow-up to continue.",
    );
    expect(agent.turns.filter((t) => t.taskId === id)).toHaveLength(1);
  });

  it.each([
    ["a cancelled task", "cancelled"],
    ["a task whose turn is done (replied)", "replied"],
  ])(
    "a stop is accepted only for a task with a running turn: %s answers 409 not_running",
    async (_case, status) => {
      const id = await start(`stop ${status}`);
      const turn = await turnOf(id);
      if (status === "cancelled") await h.call("POST", API_PATHS.stop("ws_acme", id), { token });
      else turn.answer(reply("done"));
      await waitForStatus(h, id, [status]);
      const again = await h.call("POST", API_PATHS.stop("ws_acme", id), { token });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe("not_running");
    },
  );

  it("stop works on any task in the workspace whatever its source (a delegated tracker issue)", async () => {
    expect(
      (
        await h.call("POST", API_PATHS.delegate("ws_acme"), {
          token,
          body: { source: "tracker", id: "ENG-2" },
        })
      ).status,
    ).toBe(202);
    const id = ((await h.db.get("SELECT id FROM tasks WHERE ticket_id = 'trk_2'")) as { id: string }).id;
    await turnOf(id);
    const stopped = await h.call("POST", API_PATHS.stop("ws_acme", id), {
      token: await freshToken(h, "owner@acme.test"),
    });
    expect(stopped).toMatchObject({ status: 202, body: { accepted: true } });
    await waitForStatus(h, id, ["cancelled"]);
  });

  it("simultaneous stops of one running turn: exactly one is accepted, the others answer 409 not_running", async () => {
    const id = await start("stopped ten times at once");
    await turnOf(id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, async () =>
        h.call("POST", API_PATHS.stop("ws_acme", id), { token: await freshToken(h, "owner@acme.test") }),
      ),
    );
    expect(answers.filter((a) => a.status === 202)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error === "not_running")).toHaveLength(9);
    expect((await lines(id)).filter((line) => line.startsWith("platform/response: Stopped by"))).toHaveLength(
      1,
    );
  });

  it("follow-ups racing a stop: each is either answered by the stop notice or runs as the next turn, none is lost", async () => {
    const id = await start("raced");
    await turnOf(id);
    const sends = Array.from({ length: 6 }, (_, i) => send(id, `racer ${i}`));
    const stop = h.call("POST", API_PATHS.stop("ws_acme", id), { token });
    const answers = await Promise.all([...sends, stop]);
    expect(answers.map((a) => a.status)).toEqual([...Array(6).fill(202), 202]);
    await drain();
    // Every user message belongs to a turn that ended with a closing entry after it.
    const orphans = await h.db.all(
      `SELECT m.body FROM task_messages m LEFT JOIN task_turns x ON x.id = m.turn_id
         LEFT JOIN task_messages c ON c.id = x.closing_entry_id
         WHERE m.task_id = ? AND m.role = 'user' AND (x.state IS NULL OR x.state IN ('queued', 'running') OR c.seq < m.seq)`,
      [id],
    );
    expect(orphans).toEqual([]);
    const conversationLines = await lines(id);
    for (let i = 0; i < 6; i++) expect(conversationLines).toContain(`user/message: racer ${i}`);
  });

  it("a follow-up on a cancelled task resumes it", async () => {
    const id = await start("cancel then resume");
    await turnOf(id);
    await h.call("POST", API_PATHS.stop("ws_acme", id), { token });
    await waitForStatus(h, id, ["cancelled"]);
    await send(id, "carry on");
    (await turnOf(id)).answer(reply("carried on"));
    await waitForStatus(h, id, ["replied"]);
  });

  it("the agent's error fails the turn with a platform error; missing access pauses the task (pausedOn access)", async () => {
    const failing = await start("will fail");
    (await turnOf(failing)).answer({ kind: "error", code: "agent_failed", reason: "tests do not compile" });
    await waitForStatus(h, failing, ["failed"]);
    expect((await lines(failing)).at(-1)).toBe(
      "platform/error: The turn failed: tests do not compile. Send a follow-up to try again.",
    );
    const paused = await start("needs access");
    (await turnOf(paused)).answer({ kind: "needs_access", reason: "the npm registry" });
    await waitForStatus(h, paused, ["paused"]);
    expect(await task(paused)).toMatchObject({ status: "paused", pausedOn: "access" });
  });
});

describe("POST .../messages: body {text}", () => {
  const long = "x".repeat(100_001);
  it.each([
    ["text missing", {}],
    ["text empty", { text: "" }],
    ["text only whitespace (empty after trimming)", { text: " \n\t " }],
    ["text over 100,000 characters", { text: long }],
    ["text over 100,000 characters counted as characters, not UTF-16 units", { text: "😀".repeat(100_001) }],
    ["text not a string", { text: ["a"] }],
    ["the body is not an object", '"just text"'],
  ])("1 to 100,000 characters after trimming (otherwise 400 invalid_prompt): %s", async (_case, body) => {
    const id = await start("for body rules");
    (await turnOf(id)).answer(reply("ok"));
    await waitForStatus(h, id, ["replied"]);
    const answer = await h.call("POST", API_PATHS.messages("ws_acme", id), { token, body });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_prompt", reason: expect.stringMatching(/text/) });
    expect(await lines(id)).toHaveLength(2);
  });

  it("exactly 100,000 characters after trimming is accepted and kept trimmed", async () => {
    const id = await start("for a long follow-up");
    (await turnOf(id)).answer(reply("ok"));
    await waitForStatus(h, id, ["replied"]);
    const text = "y".repeat(100_000);
    expect((await send(id, `  ${text}\n`)).status).toBe(202);
    (await turnOf(id)).answer(reply("read it"));
    await waitForStatus(h, id, ["replied"]);
    expect((await conversation(id))[2]!.body).toBe(text);
  });
});

describe("404, never 403: a task is found only through its own workspace", () => {
  const routes: [string, (ws: string, id: string) => string, unknown?][] = [
    ["GET", API_PATHS.task],
    ["POST", API_PATHS.stop],
    ["GET", API_PATHS.messages],
    ["POST", API_PATHS.messages, { text: "hello" }],
  ];
  it.each(routes)(
    "%s: another workspace's task id, asked for through a workspace the caller belongs to, is 404 not_found",
    async (method, path, body) => {
      const id = await start(`cross-workspace ${method}`);
      (await turnOf(id)).answer(reply("ok"));
      await waitForStatus(h, id, ["replied"]);
      // owner@acme.test belongs to ws_acme and ws_beta: the task is ws_acme's.
      const answer = await h.call(method, path("ws_beta", id), {
        token: await freshToken(h, "owner@acme.test"),
        body,
      });
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe("not_found");
      expect(await lines(id)).toHaveLength(2);
    },
  );
});

describe("plan slots and the queue (plan team: 2 running, 3 queued)", () => {
  it("a running turn takes one of the plan's slots; beyond that it is queued (queued: true), and its conversation stays quiet", async () => {
    const people = await Promise.all(
      ["dev@acme.test", "owner@acme.test", "unbound@acme.test"].map((e) => freshToken(h, e)),
    );
    const a = await start("slot a", people[0]);
    const b = await start("slot b", people[1]);
    await turnOf(a);
    await turnOf(b);
    const c = await start("slot c", people[2]);
    expect(await task(c)).toMatchObject({ status: "pending", queued: true });
    expect(await lines(c)).toEqual(["user/message: slot c"]);
    (agent.waiting(a) as { answer: (r: never) => void }).answer(reply("a done") as never);
    const cTurn = await turnOf(c);
    expect(await task(c)).toMatchObject({ status: "implementing", queued: false });
    cTurn.answer(reply("c done"));
    agent.waiting(b)!.answer(reply("b done"));
    await waitForStatus(h, c, ["replied"]);
  });

  // The reference accepts a stop "only for a task with a running turn" and names the 409 cases (completed,
  // cancelled, session ended); a queued task is still working, so Baton's reading: its stop is accepted and the
  // queued turn never runs.
  it("stop of a queued turn: 202, the turn is cancelled without running and its slot stays with the others", async () => {
    const people = await Promise.all(
      ["dev@acme.test", "owner@acme.test", "unbound@acme.test"].map((e) => freshToken(h, e)),
    );
    const a = await start("busy a", people[0]);
    const b = await start("busy b", people[1]);
    await turnOf(a);
    await turnOf(b);
    const c = await start("waits in the queue", people[2]);
    expect(await task(c)).toMatchObject({ status: "pending", queued: true });
    const stopped = await h.call("POST", API_PATHS.stop("ws_acme", c), { token: people[0] });
    expect(stopped).toMatchObject({ status: 202, body: { accepted: true } });
    await waitForStatus(h, c, ["cancelled"]);
    expect(await task(c)).toMatchObject({ status: "cancelled", queued: false });
    expect(await lines(c)).toEqual([
      "user/message: waits in the queue",
      "platform/response: Stopped by Dev Eloper. Send a follow-up to continue.",
    ]);
    expect(await h.db.all("SELECT state FROM task_turns WHERE task_id = ?", [c])).toEqual([
      { state: "cancelled" },
    ]);
    agent.waiting(a)!.answer(reply("a done"));
    agent.waiting(b)!.answer(reply("b done"));
    await waitForStatus(h, a, ["replied"]);
    await waitForStatus(h, b, ["replied"]);
    expect(agent.waiting(c)).toBeUndefined();
    const again = await h.call("POST", API_PATHS.stop("ws_acme", c), { token: people[0] });
    expect(again).toMatchObject({ status: 409, body: { error: "not_running" } });
  });

  it("a full queue refuses a start (429 queue_full with plan, running, queued); a follow-up is accepted and refused in the conversation", async () => {
    const idle = await start("idle task for the follow-up");
    (await turnOf(idle)).answer(reply("idle now"));
    await waitForStatus(h, idle, ["replied"]);
    const people = ["dev@acme.test", "owner@acme.test", "unbound@acme.test", "nolink@acme.test"];
    const ids: string[] = [];
    for (const [i, email] of [...people, people[0]!].entries())
      ids.push(await start(`fill ${i}`, await freshToken(h, email!)));
    const refused = await h.call("POST", API_PATHS.tasks("ws_acme"), {
      token: await freshToken(h, "owner@acme.test"),
      body: { prompt: "one too many" },
    });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: "queue_full", plan: "team", running: 2, queued: 3 });
    const followUp = await send(idle, "more please");
    expect(followUp.status).toBe(202);
    expect((await lines(idle)).at(-1)).toMatch(
      /^platform\/error: Not started: the workspace queue is full \(plan team: 2 of 2 running, 3 of 3 queued\)/,
    );
    expect(await task(idle)).toMatchObject({ status: "replied", queued: false });
    await drain();
    for (const id of ids) await waitForStatus(h, id, ["replied"]);
  });
});
