// The code host's events applied to the workspace of their installation, through the receiver and the queue, on
// the local code host (its comments land in the store). The test plays GitHub: it signs the fixtures.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installationById } from "../../../src/server/adapters/codehost/installations.js";
import { userIdFor } from "../../../src/server/domain/auth/users.js";
import { TOKENS, until } from "../api/harness.js";
import {
  applyDelivery,
  createWebhookHarness,
  fixture,
  type Payload,
  taskOfTicket,
  type WebhookHarness,
} from "./harness.js";

let h: WebhookHarness;
beforeAll(async () => {
  h = await createWebhookHarness();
});
afterAll(async () => {
  await h.close();
});

let issueCount = 100;
/** A fixture about a fresh issue (its own id and number), so tests do not share a task. */
function onNewIssue(name: string, edit: (p: Payload) => void = () => {}): Payload {
  const payload = fixture("codehost", name);
  payload.issue.id = 500_000 + ++issueCount;
  payload.issue.number = issueCount;
  edit(payload);
  return payload;
}

/** Posts a delivery and waits until the worker recorded it; returns its outcome. */
const apply = (event: string, payload: Payload): Promise<string> =>
  applyDelivery(h, "codehost", event, payload);

const issueKey = (p: Payload) => `acme/api#${p.issue.number}`;
const messages = async (taskId: string) =>
  (await h.db.all("SELECT role, body, message_id FROM task_messages WHERE task_id = ? ORDER BY seq", [
    taskId,
  ])) as {
    role: string;
    body: string;
    message_id: string | null;
  }[];

describe("issues assigned to the agent's login, or given the agent's label, start a task", () => {
  it.each([
    ["assigned", "issues-assigned"],
    ["labeled", "issues-labeled"],
  ])(
    "%s: a codehost_issue task created by the sender, first message '<repo>#<n>: <title>\\n\\n<body>'; the reply reaches the issue with the marker",
    async (_case, name) => {
      const payload = onNewIssue(name);
      const outcome = await apply("issues", payload);
      expect(outcome).toMatch(/^started task task_/);
      const task = (await taskOfTicket(h.db, String(payload.issue.id)))!;
      expect(task).toMatchObject({
        source: "codehost_issue",
        title: "Parser crashes on an empty config",
        repo: "acme/api",
        ticket_number: payload.issue.number,
        created_by: userIdFor("dev@acme.test"),
      });
      expect((await messages(task.id))[0]!.body).toBe(
        `acme/api#${payload.issue.number}: Parser crashes on an empty config\n\nRunning \`acme-api --config empty.toml\` panics in the parser.`,
      );
      const comments = await until(
        async () =>
          (await h.comments("codehost", issueKey(payload))).length > 0
            ? h.comments("codehost", issueKey(payload))
            : undefined,
        "the agent's reply on the issue",
      );
      const reply = (await messages(task.id)).find((m) => m.role === "agent")!;
      expect(comments[0]).toBe(
        `${reply.body}\n\n<!-- baton:${((await h.db.get("SELECT id FROM task_messages WHERE task_id = ? AND role = 'agent'", [task.id])) as { id: string }).id} -->`,
      );
    },
  );

  it.each([
    ["assigned to someone else", "issues-assigned", (p: Payload) => (p.assignee.login = "zed")],
    ["another label", "issues-labeled", (p: Payload) => (p.label.name = "bug")],
    ["a pull request", "issues-labeled", (p: Payload) => (p.issue.pull_request = { url: "x" })],
  ])("%s: ignored, no task, no comment", async (_case, name, edit) => {
    const payload = onNewIssue(name, edit);
    expect(await apply("issues", payload)).toMatch(/^ignored: /);
    expect(await taskOfTicket(h.db, String(payload.issue.id))).toBeUndefined();
    expect(await h.comments("codehost", issueKey(payload))).toEqual([]);
  });

  it.each([
    [
      "the sender is not a member",
      (p: Payload) => (p.sender.login = "outsider"),
      /refused: sender outsider is not a member/,
      /outsider is not a member of the workspace.*links their account/,
    ],
    [
      "the repository is not enabled",
      (p: Payload) => (p.repository.full_name = "acme/old"),
      /refused: acme\/old is not enabled/,
      /acme\/old is not enabled in the workspace; an owner enables it/,
    ],
  ])(
    "refused when %s: a comment on the issue says why and what to do",
    async (_case, edit, outcome, comment) => {
      const payload = onNewIssue("issues-labeled", edit);
      expect(await apply("issues", payload)).toMatch(outcome);
      expect(await taskOfTicket(h.db, String(payload.issue.id))).toBeUndefined();
      const key = `${payload.repository.full_name}#${payload.issue.number}`;
      const [said] = await h.comments("codehost", key);
      expect(said).toMatch(comment);
      expect(said).toContain("<!-- baton:notice -->");
    },
  );

  it("refused when billing is inactive: the comment names billing; nothing starts", async () => {
    await h.db.run("UPDATE workspaces SET billing_state = 'inactive' WHERE id = 'ws_acme'");
    try {
      const payload = onNewIssue("issues-labeled");
      expect(await apply("issues", payload)).toBe("refused: billing_inactive");
      expect((await h.comments("codehost", issueKey(payload)))[0]).toMatch(/billing is inactive/);
    } finally {
      await h.db.run("UPDATE workspaces SET billing_state = 'active' WHERE id = 'ws_acme'");
    }
  });

  it("an issue that already has a task: one task, and the comment says to follow up there", async () => {
    const payload = onNewIssue("issues-labeled");
    await apply("issues", payload);
    const assigned = fixture("codehost", "issues-assigned");
    assigned.issue.id = payload.issue.id;
    assigned.issue.number = payload.issue.number;
    expect(await apply("issues", assigned)).toBe("refused: ticket_in_progress");
    expect(
      await h.db.get("SELECT count(*) AS n FROM tasks WHERE ticket_id = ?", [String(payload.issue.id)]),
    ).toEqual({ n: 1 });
    expect(
      (await h.comments("codehost", issueKey(payload))).some((c) =>
        /already has a task; comment here/.test(c),
      ),
    ).toBe(true);
  });

  it("a delivery for an unknown installation is ignored and says so", async () => {
    const payload = onNewIssue("issues-labeled", (p) => (p.installation.id = 999));
    expect(await apply("issues", payload)).toBe("ignored: unknown installation 999");
    expect(await taskOfTicket(h.db, String(payload.issue.id))).toBeUndefined();
  });
});

describe("issue_comment created by a member on an issue with a task is a follow-up turn", () => {
  it("the comment runs a second turn; the same comment again adds nothing; the service's own comment is ignored", async () => {
    const payload = onNewIssue("issues-labeled");
    await apply("issues", payload);
    const task = (await taskOfTicket(h.db, String(payload.issue.id)))!;
    await until(
      async () => (await h.comments("codehost", issueKey(payload))).length === 1,
      "the first reply",
    );
    const comment = fixture("codehost", "issue-comment-created");
    comment.issue.id = payload.issue.id;
    comment.issue.number = payload.issue.number;
    comment.comment.id = 880_000 + issueCount;
    expect(await apply("issue_comment", comment)).toBe(
      `follow-up on task ${task.id} from comment ${comment.comment.id}`,
    );
    await until(
      async () => (await h.comments("codehost", issueKey(payload))).length === 2,
      "the second reply",
    );
    expect((await h.comments("codehost", issueKey(payload)))[1]).toMatch(
      /^Done: Please also add a test for the empty file\./,
    );
    expect(await apply("issue_comment", comment)).toMatch(/already taken/);
    const own = structuredClone(comment);
    own.comment.id += 1;
    own.comment.body = (await h.comments("codehost", issueKey(payload)))[1];
    expect(await apply("issue_comment", own)).toMatch(/the service's own comment/);
    const outsider = structuredClone(comment);
    outsider.comment.id += 2;
    outsider.comment.user.login = "outsider";
    expect(await apply("issue_comment", outsider)).toMatch(/not a member/);
    expect((await messages(task.id)).filter((m) => m.role === "user")).toHaveLength(2);
  });
});

describe("the issue closed, or taken from the agent, stops its running turn", () => {
  it.each([
    ["closed", "issues-closed"],
    ["unassigned from the agent", "issues-unassigned"],
    ["unlabeled", "issues-unlabeled"],
  ])("%s: the running turn is stopped and the task cancelled", async (_case, name) => {
    // The seed's scripted agent works 10 minutes on a prompt that says "slow": the turn is running when the event comes.
    const payload = onNewIssue("issues-labeled", (p) => (p.issue.body = "slow work ahead"));
    await apply("issues", payload);
    const task = (await taskOfTicket(h.db, String(payload.issue.id)))!;
    await until(
      async () => (await taskOfTicket(h.db, String(payload.issue.id)))!.status === "implementing",
      "the turn to run",
    );
    const stop = fixture("codehost", name);
    stop.issue.id = payload.issue.id;
    stop.issue.number = payload.issue.number;
    expect(await apply("issues", stop)).toMatch(new RegExp(`^stopped task ${task.id}`));
    expect((await taskOfTicket(h.db, String(payload.issue.id)))!.status).toBe("cancelled");
    await until(
      async () =>
        (await h.comments("codehost", issueKey(payload))).some((c) => c.startsWith("Stopped by Dev Eloper")),
      "the stop notice on the issue",
    );
    expect(await apply("issues", stop)).toMatch(/no running or queued turn/);
  });
});

describe("pull_request closed", () => {
  it.each([
    [true, "completed", 1],
    [false, "replied", 0],
  ])("merged %s: a pr_open task becomes %s (pullRequest.merged %s)", async (merged, status, mergedFlag) => {
    const payload = onNewIssue("issues-labeled");
    await apply("issues", payload);
    const task = (await taskOfTicket(h.db, String(payload.issue.id)))!;
    await until(
      async () =>
        ["replied", "pr_open"].includes((await taskOfTicket(h.db, String(payload.issue.id)))!.status),
      "the reply",
    );
    // The scripted agent's pull request is opened through the local code host elsewhere; here the task is given one.
    await h.db.run(
      "UPDATE tasks SET status = 'pr_open', pr_number = ?, pr_url = 'https://x.invalid/pr', pr_branch = 'b' WHERE id = ?",
      [payload.issue.number, task.id],
    );
    const closed = fixture("codehost", "pull-request-closed");
    closed.number = closed.pull_request.number = payload.issue.number;
    closed.pull_request.merged = merged;
    expect(await apply("pull_request", closed)).toMatch(merged ? /merged/ : /closed without merging/);
    const after = await h.db.get("SELECT status, pr_merged FROM tasks WHERE id = ?", [task.id]);
    expect(after).toEqual({ status, pr_merged: mergedFlag });
  });
});

describe("a delegated issue's replies are posted back too", () => {
  it("POST .../tickets/delegate of acme/api#7: the agent's reply reaches the issue with the marker", async () => {
    const response = await h.app.http.request("/v1/workspaces/ws_acme/tickets/delegate", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.dev}`, "content-type": "application/json" },
      body: JSON.stringify({ source: "codehost", repo: "acme/api", number: 7 }),
    });
    expect(response.status).toBe(202);
    const [reply] = await until(
      async () =>
        (await h.comments("codehost", "acme/api#7")).length > 0
          ? h.comments("codehost", "acme/api#7")
          : undefined,
      "the reply on acme/api#7",
    );
    expect(reply).toMatch(/^Done: acme\/api#7: Crash on empty login.*\n\n<!-- baton:agt_[^ ]+ -->$/s);
  });
});

describe("installation events keep the installation's records (known installations only)", () => {
  const enabled = async () =>
    (
      (await h.db.all(
        "SELECT slug FROM repositories WHERE workspace_id = 'ws_acme' AND connected = 1 ORDER BY slug",
      )) as { slug: string }[]
    ).map((r) => r.slug);

  it("repositories added and removed; suspend and unsuspend; an unknown installation is ignored", async () => {
    expect(
      await apply("installation_repositories", fixture("codehost", "installation-repositories-added")),
    ).toMatch(/1 repositories added/);
    expect(await enabled()).toContain("acme/tools");
    await apply("installation_repositories", fixture("codehost", "installation-repositories-removed"));
    expect(await enabled()).not.toContain("acme/web");
    await apply("installation", fixture("codehost", "installation-created"));
    expect(await enabled()).toEqual(expect.arrayContaining(["acme/api", "acme/web"]));
    expect(await enabled()).not.toContain("acme/tools");
    expect(
      h.logs.some((l) => l.includes('"event":"codehost.installed"') && l.includes('"installation":"4242"')),
    ).toBe(true);
    await apply("installation", fixture("codehost", "installation-suspend"));
    expect((await installationById(h.db, "4242"))!.suspended).toBe(true);
    const payload = onNewIssue("issues-labeled");
    expect(await apply("issues", payload)).toBe("ignored: installation 4242 is suspended");
    const unsuspend = fixture("codehost", "installation-suspend");
    unsuspend.action = "unsuspend";
    await apply("installation", unsuspend);
    expect((await installationById(h.db, "4242"))!.suspended).toBe(false);
    const unknown = fixture("codehost", "installation-created");
    unknown.installation.id = 31337;
    expect(await apply("installation", unknown)).toMatch(/ignored: unknown installation 31337/);
  });

  it("deleted: the installation goes, its repositories are disabled, codehost.uninstalled is logged", async () => {
    await apply("installation", fixture("codehost", "installation-deleted"));
    expect(await installationById(h.db, "4242")).toBeUndefined();
    expect(h.logs.some((l) => l.includes('"event":"codehost.uninstalled"'))).toBe(true);
    expect(await h.db.get("SELECT codehost_connected FROM workspaces WHERE id = 'ws_acme'")).toEqual({
      codehost_connected: 0,
    });
  });
});
