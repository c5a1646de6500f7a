// Whole turns with the scripted agent, real git and the local code host: a pull request opens (pr_open) and,
// once merged on the code host, the task is completed; files produced are posted; billing stopped by the admin
// API pauses the next turn (pausedOn billing); a bigger plan starts queued turns. Also the admin token route.
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import {
  ADMIN_TOKEN,
  type ApiHarness,
  createApiHarness,
  freshToken,
  until,
  waitForStatus,
} from "./harness.js";
import { checkResponse } from "./openapi-check.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  await h.close();
});

const admin = async (path: string, body: unknown) => {
  const response = await h.app.http.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADERS.adminToken]: ADMIN_TOKEN },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(checkResponse("POST", path, response.status, (name) => response.headers.get(name), text)).toEqual(
    [],
  );
  return { status: response.status, body: JSON.parse(text) };
};
const start = async (body: unknown, token?: string) => {
  const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), {
    token: token ?? (await freshToken(h)),
    body,
  });
  expect(answer.status).toBe(202);
  return answer.body.task.id as string;
};
const lines = async (id: string) =>
  (await h.call("GET", API_PATHS.messages("ws_acme", id), { token: await freshToken(h) })).body.messages.map(
    (m: { role: string; kind: string; body: string }) => `${m.role}/${m.kind}: ${m.body}`,
  );
const getTask = async (id: string) =>
  (await h.call("GET", API_PATHS.task("ws_acme", id), { token: await freshToken(h) })).body;

describe("pull requests through the code host", () => {
  it("the agent pushes a branch; the task is pr_open with pullRequest {url, merged: false}; merged on the code host, it is completed", async () => {
    const id = await start({ prompt: "please open a pr for the build", repo: "acme/api" });
    await waitForStatus(h, id, ["pr_open"]);
    const task = await getTask(id);
    expect(task.pullRequest).toEqual({
      url: expect.stringMatching(/^file:\/\/.*\/ws_acme\/acme\/api\.git#pull\/1$/),
      merged: false,
    });
    expect(await lines(id)).toEqual([
      "user/message: please open a pr for the build",
      "agent/response: Opened a pull request with the fix.",
      "platform/response: Files the agent produced: src/fix.ts",
    ]);
    const bare = join(h.dir, "work", "codehost", "ws_acme", "acme", "api.git");
    const branch = `baton/${id}`;
    expect((await execa("git", ["--git-dir", bare, "show", `${branch}:src/fix.ts`])).stdout).toBe(
      "export const fixed = true;",
    );
    // A person merges it on the code host.
    const head = (await execa("git", ["--git-dir", bare, "rev-parse", branch])).stdout;
    await execa("git", ["--git-dir", bare, "update-ref", "refs/heads/main", head]);
    await waitForStatus(h, id, ["completed"]);
    expect((await getTask(id)).pullRequest.merged).toBe(true);
  });

  it("a follow-up on a completed task resumes it", async () => {
    const id = ((await h.db.get("SELECT id FROM tasks WHERE status = 'completed'")) as { id: string }).id;
    await h.call("POST", API_PATHS.messages("ws_acme", id), {
      token: await freshToken(h),
      body: { text: "one more thing" },
    });
    await waitForStatus(h, id, ["replied"]);
    expect((await lines(id)).at(-1)).toBe("agent/response: Done: one more thing");
  });

  it("files the agent produced are posted by the service", async () => {
    const id = await start({ prompt: "write notes" });
    await waitForStatus(h, id, ["replied"]);
    expect((await lines(id)).slice(1)).toEqual([
      "agent/response: Wrote the notes.",
      "platform/response: Files the agent produced: NOTES.md",
    ]);
  });

  it("a clarifying question is a clarify entry; the task waits for a reply", async () => {
    const id = await start({ prompt: "ask me something" });
    await waitForStatus(h, id, ["replied"]);
    expect((await lines(id)).at(-1)).toBe("agent/clarify: Which file should I change for: ask me something?");
  });
});

describe("billing and the plan through the admin API", () => {
  it("billing stopped while a turn waits: the turn pauses when it would begin (pausedOn billing), with a platform error", async () => {
    expect(
      (await admin(ADMIN_PATHS.plan, { workspaceId: "ws_acme", concurrency: 1, queueSize: 3 })).status,
    ).toBe(200);
    const slow = await start({ prompt: "slow work" }, await freshToken(h, "owner@acme.test"));
    await waitForStatus(h, slow, ["implementing"]);
    const waiting = await start({ prompt: "behind the slow one" });
    expect(await getTask(waiting)).toMatchObject({ status: "pending", queued: true });
    expect((await admin(ADMIN_PATHS.billing, { workspaceId: "ws_acme", state: "inactive" })).status).toBe(
      200,
    );
    await h.call("POST", API_PATHS.stop("ws_acme", slow), { token: await freshToken(h) });
    await waitForStatus(h, waiting, ["paused"]);
    expect(await getTask(waiting)).toMatchObject({ status: "paused", pausedOn: "billing", queued: false });
    expect((await lines(waiting)).at(-1)).toMatch(/^platform\/error: Paused: billing is inactive/);
    expect((await admin(ADMIN_PATHS.billing, { workspaceId: "ws_acme", state: "active" })).status).toBe(200);
    await h.call("POST", API_PATHS.messages("ws_acme", waiting), {
      token: await freshToken(h),
      body: { text: "billing is back" },
    });
    await waitForStatus(h, waiting, ["replied"]);
  });

  it("a bigger plan starts queued turns at once", async () => {
    const slow = await start({ prompt: "slow again" }, await freshToken(h, "owner@acme.test"));
    await waitForStatus(h, slow, ["implementing"]);
    const queued = await start({ prompt: "queued until the plan grows" });
    expect((await getTask(queued)).queued).toBe(true);
    expect(
      (await admin(ADMIN_PATHS.plan, { workspaceId: "ws_acme", concurrency: 2, queueSize: 3 })).status,
    ).toBe(200);
    await waitForStatus(h, queued, ["replied"]);
    await h.call("POST", API_PATHS.stop("ws_acme", slow), { token: await freshToken(h) });
  });

  it.each([
    [ADMIN_PATHS.billing, { workspaceId: "ws_nope", state: "active" }],
    [ADMIN_PATHS.plan, { workspaceId: "ws_nope", concurrency: 1, queueSize: 1 }],
  ])("%s of an unknown workspace is 404", async (path, body) => {
    expect((await admin(path, body)).status).toBe(404);
  });
});

describe("POST /admin/v1/tokens", () => {
  it("creates a personal access token for a member: shown once, then only its name and last four", async () => {
    const made = await admin(ADMIN_PATHS.tokens, { email: "dev@acme.test", name: "ci", lifetimeDays: 90 });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^pat_/),
      token: expect.stringMatching(/^btn_[A-Za-z0-9_-]{43}$/),
      name: "ci",
      lastFour: made.body.token.slice(-4),
      email: "dev@acme.test",
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(made.body.expiresAt) - Date.parse(made.body.createdAt)).toBe(90 * 86_400_000);
    expect((await h.call("GET", API_PATHS.me, { token: made.body.token })).status).toBe(200);
    const row = (await h.db.get("SELECT * FROM personal_access_tokens WHERE id = ?", [
      made.body.id,
    ])) as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(made.body.token);
    expect(row).toMatchObject({ name: "ci", last_four: made.body.lastFour });
  });

  it.each([
    [{ email: "dev@acme.test", name: "x", lifetimeDays: 60 }, 400],
    [{ email: "dev@acme.test", name: "", lifetimeDays: 30 }, 400],
    [{ email: "nobody@acme.test", name: "x", lifetimeDays: 30 }, 404],
  ])("refuses %j with %i", async (body, status) => {
    expect((await admin(ADMIN_PATHS.tokens, body)).status).toBe(status);
  });
});

it("no open turn is left behind", async () => {
  await until(
    async () =>
      (
        (await h.db.get("SELECT count(*) AS n FROM task_turns WHERE state IN ('queued','running')")) as {
          n: number;
        }
      ).n === 0 || undefined,
    "no open turns",
  );
});
