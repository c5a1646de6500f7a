// Tickets through the tracker and code-host ports (issue 13 point 3): a tracker and a code host other than the
// local ones plug into the service, which then reads and claims issues only through them. They are in-memory
// stand-ins for remote services (none is reachable from here) that answer what a remote would and record every
// call, so a test can see who was asked what, as whom, and in which order.
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Codehost, CodehostIssue } from "../../../src/server/adapters/codehost/port.js";
import type { Tracker, TrackerIssue } from "../../../src/server/adapters/tracker/port.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "./harness.js";

const calls: { port: string; method: string; input: Record<string, unknown> }[] = [];
/**
 * Replies posted to issues: kept apart from `calls`, since the outbox's worker posts an earlier test's reply
 * whenever that task replies (woken at once by the store's notification), which can fall inside a later test.
 */
const posts: { port: string; input: Record<string, unknown> }[] = [];
const failing = { search: false, claim: false };
let trackerIssues: TrackerIssue[] = [];
let codehostIssues: CodehostIssue[] = [];

const issue = (over: Partial<TrackerIssue> & { id: string }): TrackerIssue => ({
  identifier: over.id.toUpperCase(),
  title: `remote ${over.id}`,
  context: "",
  state: "open",
  assignee: null,
  inProgress: false,
  url: `https://tracker.invalid/${over.id}`,
  ...over,
});
const ghIssue = (over: Partial<CodehostIssue> & { number: number }): CodehostIssue => ({
  id: `gh-${over.number}`,
  repo: "acme/api",
  title: `remote #${over.number}`,
  context: "",
  state: "open",
  assignee: null,
  isPullRequest: false,
  inProgress: false,
  url: `https://codehost.invalid/acme/api/issues/${over.number}`,
  ...over,
});

const remoteTracker: Tracker = {
  kind: "remote-stand-in",
  async searchIssues(input) {
    calls.push({ port: "tracker", method: "searchIssues", input });
    if (failing.search) throw new Error("the tracker is down");
    return trackerIssues;
  },
  async findIssue(input) {
    calls.push({ port: "tracker", method: "findIssue", input });
    return trackerIssues.find((i) => i.id === input.idOrIdentifier || i.identifier === input.idOrIdentifier);
  },
  async claimIssue(input) {
    calls.push({ port: "tracker", method: "claimIssue", input });
    if (failing.claim) throw new Error("the tracker refused the assignment");
  },
  async postComment(input) {
    posts.push({ port: "tracker", input });
  },
};
const remoteCodehost: Codehost = {
  kind: "remote-stand-in",
  // Turns of a delegated code-host issue get a clone URL; the scripted agent here never clones it.
  gitUrl: async (workspaceId, repo) => pathToFileURL(`/nonexistent/${workspaceId}/${repo}.git`).href,
  openPullRequest: async () => {
    throw new Error("not used here");
  },
  isMerged: async () => false,
  readDefaultBranchFile: async () => null,
  async searchIssues(input) {
    calls.push({ port: "codehost", method: "searchIssues", input });
    return codehostIssues;
  },
  async findIssue(input) {
    calls.push({ port: "codehost", method: "findIssue", input });
    return codehostIssues.find((i) => i.repo === input.repo && i.number === input.number);
  },
  async claimIssue(input) {
    calls.push({ port: "codehost", method: "claimIssue", input });
  },
  async postComment(input) {
    posts.push({ port: "codehost", input });
  },
};

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({ tasks: { tracker: remoteTracker, codehost: remoteCodehost } });
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  // The replies of the last test's tasks are posted after their status reads replied (a worker drains the
  // outbox): let them go out first, so this test's calls are its own.
  await until(
    async () => (await h.db.get("SELECT 1 FROM issue_posts WHERE state = 'queued'")) === undefined,
    "the previous test's replies to be posted",
  );
  calls.length = 0;
  failing.search = false;
  failing.claim = false;
  trackerIssues = [issue({ id: "r1", assignee: "dev-t" }), issue({ id: "r2" })];
  codehostIssues = [ghIssue({ number: 41 }), ghIssue({ number: 42, assignee: "dev-gh" })];
});

const search = async (query = "") =>
  h.call("GET", `${API_PATHS.tickets("ws_acme")}${query}`, { token: await freshToken(h) });
const delegate = async (body: unknown, workspace = "ws_acme") =>
  h.call("POST", API_PATHS.delegate(workspace), { token: await freshToken(h), body });
const identifiersOf = (answer: { body: { tickets: { identifier: string }[] } }) =>
  answer.body.tickets.map((t) => t.identifier);

describe("ticket search through the ports", () => {
  it("lists what the tracker and the code host return, read as the caller; never the store's own issues", async () => {
    const answer = await search("?q=%20login%20&repo=acme/web");
    expect(answer.status).toBe(200);
    expect(identifiersOf(answer)).toEqual(["R1", "R2", "acme/api#42", "acme/api#41"]);
    expect(answer.body.tickets[0]).toMatchObject({
      id: "r1",
      url: "https://tracker.invalid/r1",
      yours: true,
    });
    expect(calls).toEqual([
      {
        port: "tracker",
        method: "searchIssues",
        input: { workspaceId: "ws_acme", identity: "dev-t", q: "login", limit: 100 },
      },
      {
        port: "codehost",
        method: "searchIssues",
        input: {
          workspaceId: "ws_acme",
          login: "dev-gh",
          repos: ["acme/web", "acme/api"],
          q: "login",
          limit: 100,
        },
      },
    ]);
  });

  it("leaves out what a port returns that the reference leaves out: closed, assigned to someone else, pull requests, in progress", async () => {
    trackerIssues = [
      issue({ id: "closed", state: "closed" }),
      issue({ id: "theirs", assignee: "zed-t" }),
      issue({ id: "busy", inProgress: true }),
      issue({ id: "ok" }),
    ];
    codehostIssues = [
      ghIssue({ number: 1, isPullRequest: true }),
      ghIssue({ number: 2, repo: "acme/old" }),
      ghIssue({ number: 3 }),
    ];
    expect(identifiersOf(await search())).toEqual(["OK", "acme/api#3"]);
  });

  it("at most 10 from each: the caller's own first, then the team's unassigned ones", async () => {
    trackerIssues = Array.from({ length: 12 }, (_, i) =>
      issue({ id: `many${i}`, assignee: i === 11 ? "dev-t" : null }),
    );
    codehostIssues = Array.from({ length: 12 }, (_, i) => ghIssue({ number: 100 + i }));
    const answer = await search();
    const tickets = answer.body.tickets as { source: string; identifier: string; yours: boolean }[];
    expect(tickets.filter((t) => t.source === "tracker")).toHaveLength(10);
    expect(tickets.filter((t) => t.source === "codehost")).toHaveLength(10);
    expect(tickets[0]).toMatchObject({ identifier: "MANY11", yours: true });
  });

  it("an issue a task of the workspace already works on is left out, whatever the port says", async () => {
    trackerIssues = [issue({ id: "mine-now" }), issue({ id: "free" })];
    expect((await delegate({ source: "tracker", id: "mine-now" })).status).toBe(202);
    expect(identifiersOf(await search())).toEqual(["FREE", "acme/api#42", "acme/api#41"]);
  });

  it("a port that fails leaves its issues out; the other source still shows", async () => {
    failing.search = true;
    const answer = await search();
    expect(answer.status).toBe(200);
    expect(identifiersOf(answer)).toEqual(["acme/api#42", "acme/api#41"]);
  });

  it("a source that is not connected, or a caller without an identity there, is not asked", async () => {
    await search();
    expect(calls).toHaveLength(2);
    calls.length = 0;
    await h.call("GET", API_PATHS.tickets("ws_nohost"), { token: await freshToken(h) });
    expect(calls).toEqual([]);
  });
});

describe("delegation through the ports", () => {
  it("finds the issue through its port, saves the task, then claims the issue with the task's id as the caller", async () => {
    const answer = await delegate({ source: "tracker", id: "R2" });
    expect(answer).toMatchObject({ status: 202, body: { ok: true } });
    const task = (await h.db.get("SELECT id, title, source FROM tasks WHERE ticket_id = 'r2'")) as {
      id: string;
      title: string;
      source: string;
    };
    expect(task).toMatchObject({ title: "remote r2", source: "tracker" });
    expect(calls).toEqual([
      {
        port: "tracker",
        method: "findIssue",
        input: { workspaceId: "ws_acme", identity: "dev-t", idOrIdentifier: "R2" },
      },
      {
        port: "tracker",
        method: "claimIssue",
        input: { workspaceId: "ws_acme", issueId: "r2", identity: "dev-t", taskId: task.id },
      },
    ]);
    await waitForStatus(h, task.id, ["replied"]);
  });

  it("a code-host issue: found and claimed as the caller's login", async () => {
    expect((await delegate({ source: "codehost", repo: "acme/api", number: 41 })).status).toBe(202);
    const { id } = (await h.db.get("SELECT id FROM tasks WHERE ticket_id = 'gh-41'")) as { id: string };
    expect(calls.at(-1)).toEqual({
      port: "codehost",
      method: "claimIssue",
      input: { workspaceId: "ws_acme", repo: "acme/api", number: 41, login: "dev-gh", taskId: id },
    });
    await waitForStatus(h, id, ["replied"]);
  });

  it.each([
    ["closed", { state: "closed" as const }, "ticket_closed"],
    ["assigned to someone else", { assignee: "zed-t" }, "ticket_assigned_elsewhere"],
    ["in progress on the tracker", { inProgress: true }, "ticket_in_progress"],
  ])("an issue the port reports %s is refused and not claimed", async (_case, over, error) => {
    trackerIssues = [issue({ id: "odd", ...over })];
    const answer = await delegate({ source: "tracker", id: "odd" });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe(error);
    expect(calls.map((c) => c.method)).toEqual(["findIssue"]);
  });

  it("if the workspace queue is full the request is refused before the issue is touched: no claim", async () => {
    await h.db.run("UPDATE workspaces SET plan_concurrency = 0, plan_queue_size = 0 WHERE id = 'ws_acme'");
    try {
      trackerIssues = [issue({ id: "queued-out" })];
      const answer = await delegate({ source: "tracker", id: "queued-out" });
      expect(answer.status).toBe(429);
      expect(answer.body.error).toBe("queue_full");
      expect(calls.map((c) => c.method)).toEqual(["findIssue"]);
    } finally {
      await h.db.run("UPDATE workspaces SET plan_concurrency = 2, plan_queue_size = 3 WHERE id = 'ws_acme'");
    }
  });

  it("a claim the port fails after the task is saved: 202, and the task runs", async () => {
    failing.claim = true;
    trackerIssues = [issue({ id: "unclaimed" })];
    expect((await delegate({ source: "tracker", id: "unclaimed" })).status).toBe(202);
    const { id } = (await h.db.get("SELECT id FROM tasks WHERE ticket_id = 'unclaimed'")) as { id: string };
    await waitForStatus(h, id, ["replied"]);
  });

  it("two simultaneous delegations of one issue make one task; the other is 409 ticket_in_progress", async () => {
    trackerIssues = [issue({ id: "raced" })];
    const answers = await Promise.all([
      delegate({ source: "tracker", id: "raced" }),
      delegate({ source: "tracker", id: "raced" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.status === 409)!.body.error).toBe("ticket_in_progress");
    expect(await h.db.get("SELECT count(*) AS n FROM tasks WHERE ticket_id = 'raced'")).toEqual({ n: 1 });
    expect(calls.filter((c) => c.method === "claimIssue")).toHaveLength(1);
    const { id } = (await h.db.get("SELECT id FROM tasks WHERE ticket_id = 'raced'")) as { id: string };
    await waitForStatus(h, id, ["replied"]);
  });

  it("a workspace whose tracker is not connected: 409 tracker_not_connected with settingsUrl, and the tracker is not asked", async () => {
    await h.db.run("UPDATE workspaces SET tracker_connected = 0 WHERE id = 'ws_acme'");
    try {
      const answer = await delegate({ source: "tracker", id: "r2" });
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({
        error: "tracker_not_connected",
        settingsUrl: "http://127.0.0.1:9/dashboard/workspaces/ws_acme/settings",
      });
      expect(calls).toEqual([]);
    } finally {
      await h.db.run("UPDATE workspaces SET tracker_connected = 1 WHERE id = 'ws_acme'");
    }
  });

  it("a workspace not connected to the code host: 409 codehost_not_connected, and the code host is not asked", async () => {
    const answer = await delegate({ source: "codehost", repo: "nohost/app", number: 1 }, "ws_nohost");
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe("codehost_not_connected");
    expect(calls).toEqual([]);
  });
});
