// Reference section 4 "GET .../tasks" and "GET .../tasks/{taskId}/messages": order, filters, page sizes and
// cursors, every error code, through app.request().
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { createGatedAgent, reply } from "./gated-agent.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "./harness.js";

let h: ApiHarness;
const agent = createGatedAgent();
const ids: string[] = [];
let delegated: string;
beforeAll(async () => {
  h = await createApiHarness({ tasks: { agent } });
  // Seven replied tasks, started one after the other, then one delegated tracker task.
  for (let i = 0; i < 7; i++) {
    const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), {
      token: await freshToken(h),
      body: { prompt: `task ${i}` },
    });
    ids.push(answer.body.task.id);
    (await until(() => agent.waiting(answer.body.task.id), "turn")).answer(reply(`reply ${i}`));
    await waitForStatus(h, answer.body.task.id, ["replied"]);
  }
  expect(
    (
      await h.call("POST", API_PATHS.delegate("ws_acme"), {
        token: await freshToken(h),
        body: { source: "tracker", id: "ENG-2" },
      })
    ).status,
  ).toBe(202);
  delegated = ((await h.db.get("SELECT id FROM tasks WHERE source = 'tracker'")) as { id: string }).id;
  (await until(() => agent.waiting(delegated), "delegated turn")).answer(reply("on the issue"));
  await waitForStatus(h, delegated, ["replied"]);
});
afterAll(async () => {
  await h.close();
});

const list = async (query: string) =>
  h.call("GET", `${API_PATHS.tasks("ws_acme")}${query}`, { token: await freshToken(h) });

describe("GET /v1/workspaces/{workspaceId}/tasks", () => {
  it("lists tasks of every source, most recently active first; default page of 50; nextCursor null on the last page", async () => {
    const all = await list("");
    expect(all.status).toBe(200);
    expect(all.body.tasks.map((t: { id: string }) => t.id)).toEqual([delegated, ...[...ids].reverse()]);
    expect(all.body.tasks[0]).toMatchObject({ source: "tracker", title: "Add rate limiting docs" });
    expect(all.body.nextCursor).toBeNull();
  });

  it("activity moves a task to the front", async () => {
    const token = await freshToken(h);
    await h.call("POST", API_PATHS.messages("ws_acme", ids[2]!), { token, body: { text: "bump" } });
    (await until(() => agent.waiting(ids[2]!), "turn")).answer(reply("bumped"));
    await waitForStatus(h, ids[2]!, ["replied"]);
    expect((await list("")).body.tasks[0].id).toBe(ids[2]);
  });

  it("the cursor pages through every task once, with no gaps", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.body.tasks.length).toBeLessThanOrEqual(3);
      seen.push(...page.body.tasks.map((t: { id: string }) => t.id));
      cursor = page.body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual((await list("")).body.tasks.map((t: { id: string }) => t.id));
  });

  it("status: only tasks in that status", async () => {
    const replied = await list("?status=replied");
    expect(replied.body.tasks).toHaveLength(8);
    expect((await list("?status=failed")).body.tasks).toEqual([]);
  });

  it.each([["nonsense"], ["Replied"], ["done"], [""]])(
    "status: an unknown name gives 400 invalid_status (%j)",
    async (status) => {
      const answer = await list(`?status=${encodeURIComponent(status)}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe("invalid_status");
    },
  );

  it.each([["0"], ["101"], ["-1"], ["abc"], ["2.5"], [""], ["1e2"]])(
    "limit: 1 to 100; otherwise 400 invalid_limit (%j)",
    async (limit) => {
      const answer = await list(`?limit=${encodeURIComponent(limit)}`);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe("invalid_limit");
    },
  );

  it.each([
    ["1", 1],
    ["100", 8],
  ])("limit %s is allowed", async (limit, count) => {
    expect((await list(`?limit=${limit}`)).body.tasks).toHaveLength(count);
  });

  it.each([
    ["garbage!"],
    [Buffer.from("t2.1.1").toString("base64url")],
    [Buffer.from("t1.x.y").toString("base64url")],
    [Buffer.from(`t2.1.task_${"0".repeat(32)}`).toString("base64url")],
    ["a".repeat(100)],
  ])("cursor: malformed (or naming no task of this list) gives 400 invalid_cursor (%s)", async (cursor) => {
    const answer = await list(`?cursor=${encodeURIComponent(cursor)}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_cursor");
  });
});

describe("the task list's cursor belongs to its workspace's list", () => {
  it("a nextCursor of another workspace's list gives 400 invalid_cursor", async () => {
    // owner@acme.test belongs to ws_acme and ws_beta; ws_beta has a task so that its list is not empty.
    const owner = await freshToken(h, "owner@acme.test");
    const beta = await h.call("POST", API_PATHS.tasks("ws_beta"), {
      token: owner,
      body: { prompt: "in beta" },
    });
    (await until(() => agent.waiting(beta.body.task.id), "beta turn")).answer(reply("ok"));
    const page = await h.call("GET", `${API_PATHS.tasks("ws_acme")}?limit=1`, { token: owner });
    expect(page.body.nextCursor).toEqual(expect.any(String));
    const elsewhere = await h.call(
      "GET",
      `${API_PATHS.tasks("ws_beta")}?cursor=${encodeURIComponent(page.body.nextCursor)}`,
      { token: owner },
    );
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error).toBe("invalid_cursor");
  });

  it("a cursor says nothing about other workspaces: it does not carry the task's place among all the service's tasks", async () => {
    const page = await list("?limit=1");
    const { seq } = (await h.db.get("SELECT seq FROM tasks WHERE id = ?", [page.body.tasks[0].id])) as {
      seq: number;
    };
    // That place counts every workspace's tasks made before it; the cursor is base64url of dot-separated fields.
    const fields = Buffer.from(page.body.nextCursor, "base64url").toString("latin1").split(".");
    expect(fields).not.toContain(String(seq));
  });
});

describe("GET /v1/workspaces/{workspaceId}/tasks/{taskId}/messages", () => {
  let busy: string;
  beforeAll(async () => {
    const token = await freshToken(h);
    const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), { token, body: { prompt: "m0" } });
    busy = answer.body.task.id;
    (await until(() => agent.waiting(busy), "turn")).answer(reply("a0"));
    for (let i = 1; i < 5; i++) {
      await waitForStatus(h, busy, ["replied"]);
      await h.call("POST", API_PATHS.messages("ws_acme", busy), { token, body: { text: `m${i}` } });
      (await until(() => agent.waiting(busy), "turn")).answer(reply(`a${i}`));
    }
    await waitForStatus(h, busy, ["replied"]);
  });
  const messages = async (query: string, taskId = busy) =>
    h.call("GET", `${API_PATHS.messages("ws_acme", taskId)}${query}`, { token: await freshToken(h) });

  it("the conversation, oldest first, default page of 100; next is null on the last page", async () => {
    const all = await messages("");
    expect(all.body.messages.map((m: { body: string }) => m.body)).toEqual([
      "m0",
      "a0",
      "m1",
      "a1",
      "m2",
      "a2",
      "m3",
      "a3",
      "m4",
      "a4",
    ]);
    expect(all.body.next).toBeNull();
    expect(all.body.messages[1]).toMatchObject({
      role: "agent",
      kind: "response",
      messageId: null,
      id: expect.stringMatching(/^agt_/),
    });
  });

  it("after: returns only later entries; when next is not null, pass it as after for the next page", async () => {
    const first = await messages("?limit=4");
    expect(first.body.messages.map((m: { body: string }) => m.body)).toEqual(["m0", "a0", "m1", "a1"]);
    expect(first.body.next).toBe(first.body.messages[3].id);
    const second = await messages(`?limit=4&after=${first.body.next}`);
    expect(second.body.messages.map((m: { body: string }) => m.body)).toEqual(["m2", "a2", "m3", "a3"]);
    const last = await messages(`?limit=4&after=${second.body.next}`);
    expect(last.body.messages.map((m: { body: string }) => m.body)).toEqual(["m4", "a4"]);
    expect(last.body.next).toBeNull();
    const none = await messages(`?after=${last.body.messages[1].id}`);
    expect(none.body).toEqual({ messages: [], next: null });
  });

  it.each([
    ["unknown id", "msg_nope"],
    ["an entry of another task", "OTHER"],
  ])("after: an id that is not an entry of this task gives 400 invalid_cursor (%s)", async (_case, after) => {
    const other = (await messages("", ids[0]!)).body.messages[0].id;
    const answer = await messages(`?after=${after === "OTHER" ? other : after}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_cursor");
  });

  it.each([["0"], ["201"], ["x"]])("limit: 1 to 200; otherwise 400 invalid_limit (%j)", async (limit) => {
    const answer = await messages(`?limit=${limit}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe("invalid_limit");
  });

  it("limit 200 is allowed", async () => {
    expect((await messages("?limit=200")).body.messages).toHaveLength(10);
  });

  it("a task that started elsewhere answers 409 not_an_api_task (read and follow-up); get and stop still work", async () => {
    const read = await messages("", delegated);
    expect(read.status).toBe(409);
    expect(read.body.error).toBe("not_an_api_task");
    const follow = await h.call("POST", API_PATHS.messages("ws_acme", delegated), {
      token: await freshToken(h),
      body: { text: "hi" },
    });
    expect(follow.status).toBe(409);
    expect(follow.body.error).toBe("not_an_api_task");
    expect(
      (await h.call("GET", API_PATHS.task("ws_acme", delegated), { token: await freshToken(h) })).body.source,
    ).toBe("tracker");
  });

  it("no such task: 404 not_found", async () => {
    expect((await messages("", "task_nope")).status).toBe(404);
  });
});
