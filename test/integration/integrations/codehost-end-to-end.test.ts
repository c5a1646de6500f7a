// Issue 24 end to end, through a real `baton serve` child process and a loopback fake of GitHub (no code host is
// reachable from this machine: test/helpers/fake-codehost speaks GitHub's App, REST and git protocol and checks
// the App's JWT and installation tokens). A signed "issue labelled" delivery starts a task; the scripted agent
// pushes its branch as the App's installation and the service opens the pull request through the fake's API; the
// reply reaches the fake as a comment on the issue; a follow-up comment runs a second turn; the pull request
// merged on the fake and its signed "closed" delivery show on the task.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signBody } from "../../../src/server/surfaces/webhooks/verify.js";
import { type FakeCodehost, startFakeCodehost } from "../../helpers/fake-codehost/index.js";
import { pollUntil } from "../../helpers/poll.js";
import { FIXTURES, LOUD, type ServeHandle, startServe } from "../../helpers/serve.js";

const WEBHOOK_SECRET = "canary-e2e-webhook-secret-3b9d7c1e-never-print";
const OWNER_TOKEN = "btn_e2e_owner_token_0123456789abcdef";
const INSTALLATION = 77;
const REPO = "acme/api";

let fake: FakeCodehost;
let serve: ServeHandle;
let dir: string;
let issue: { id: number; number: number; title: string; body: string };
let deliveries = 0;

const fixture = async (name: string) =>
  JSON.parse(await readFile(join(FIXTURES, "webhooks", "codehost", `${name}.json`), "utf8"));

/** The payload the App would send about our issue, repository and installation, by member `olive`. */
function aboutOurIssue(payload: Record<string, unknown>): Record<string, unknown> {
  return {
    ...payload,
    issue: {
      ...(payload.issue as object),
      id: issue.id,
      number: issue.number,
      title: issue.title,
      body: issue.body,
    },
    repository: { ...(payload.repository as object), name: "api", full_name: REPO },
    sender: { login: "olive", id: 501, type: "User" },
    installation: { id: INSTALLATION },
  };
}

async function deliver(event: string, payload: unknown): Promise<Response> {
  const raw = JSON.stringify(payload);
  deliveries += 1;
  return fetch(`${serve.url}/webhooks/codehost`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": event,
      "x-github-delivery": `e2e-${process.pid}-${deliveries}`,
      "x-hub-signature-256": `sha256=${signBody(WEBHOOK_SECRET, raw)}`,
    },
    body: raw,
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the API's task as JSON; each assertion names the fields it reads
async function ourTask(): Promise<any> {
  const response = await fetch(`${serve.url}/v1/workspaces/ws_acme/tasks`, {
    headers: { authorization: `Bearer ${OWNER_TOKEN}` },
  });
  const { tasks } = (await response.json()) as { tasks: { source: string; title: string }[] };
  return tasks.find((task) => task.source === "codehost_issue" && task.title === issue.title);
}

const commentsOnIssue = () =>
  fake.state.repos
    .get(REPO)!
    .issues.find((i) => i.number === issue.number)!
    .comments.map((c) => c.body);

beforeAll(async () => {
  fake = await startFakeCodehost();
  await fake.addRepo(REPO);
  await fake.commitFile(REPO, "README.md", "# acme/api\n");
  fake.addInstallation(INSTALLATION, "acme", [REPO]);
  issue = fake.addIssue(REPO, { title: "Fix the login page", body: "The login button does nothing." });
  dir = await mkdtemp(join(tmpdir(), "baton-e2e-codehost-"));
  const keyFile = join(dir, "app.pem");
  const secretFile = join(dir, "webhook-secret");
  await writeFile(keyFile, fake.settings.privateKeyPem, { mode: 0o600 });
  await writeFile(secretFile, `${WEBHOOK_SECRET}\n`, { mode: 0o600 });
  const clientSecretFile = join(dir, "client-secret");
  await writeFile(clientSecretFile, fake.settings.clientSecret, { mode: 0o600 });
  const seedFile = join(dir, "seed.json");
  await writeFile(
    seedFile,
    JSON.stringify({
      agent: {
        rules: [
          { match: "tests", reply: "Added a test for the login button." },
          {
            match: "login",
            reply: "Fixed the login page; the pull request is open.",
            files: { "login.txt": "fixed\n" },
            pullRequest: { branch: "baton/fix-login", title: "Fix the login page" },
          },
        ],
      },
      workspaces: [
        {
          id: "ws_acme",
          name: "Acme",
          members: [
            {
              email: "olive@acme.test",
              role: "owner",
              name: "Olive",
              codehostLogin: "olive",
              token: OWNER_TOKEN,
            },
          ],
          repositories: [{ repository: REPO }],
          codehost: { installation: { id: String(INSTALLATION), account: "acme" } },
        },
      ],
    }),
  );
  serve = await startServe({
    seed: seedFile,
    env: LOUD,
    args: [
      ...["--codehost-app-id", fake.settings.appId, "--codehost-app-slug", fake.settings.appSlug],
      ...["--codehost-private-key-file", keyFile, "--codehost-webhook-secret-file", secretFile],
      ...["--codehost-api-url", fake.apiUrl, "--codehost-web-url", fake.webUrl],
      ...["--codehost-client-id", fake.settings.clientId, "--codehost-client-secret-file", clientSecretFile],
    ],
  });
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a code-host issue delegated by webhook, end to end", () => {
  it("a signed 'issue labelled' delivery is accepted and starts a task that opens a pull request through the API", async () => {
    const response = await deliver("issues", aboutOurIssue(await fixture("issues-labeled")));
    expect(response.status).toBe(202);
    const task = await pollUntil(ourTask, (t) => t?.status === "pr_open", { timeoutMs: 30_000 });
    expect(task).toMatchObject({ source: "codehost_issue", repo: REPO, status: "pr_open" });
    expect(task.pullRequest).toEqual({ url: `${fake.webUrl}/${REPO}/pull/2`, merged: false });
    // The branch really reached the fake's git, pushed with an installation token.
    expect(await fake.branchHead(REPO, "baton/fix-login")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("the agent's reply reaches the issue as a comment (marked, so its own webhook is ignored)", async () => {
    const comments = await pollUntil(
      commentsOnIssue,
      (c) => c.some((b) => b.includes("Fixed the login page")),
      {
        timeoutMs: 20_000,
      },
    );
    const reply = comments.find((b) => b.includes("Fixed the login page"));
    expect(reply).toMatch(/<!-- baton:agt_[0-9a-f]+ -->/);
  });

  it("a follow-up comment by the member runs a second turn, whose reply is posted too", async () => {
    const payload = aboutOurIssue(await fixture("issue-comment-created"));
    const comment = {
      ...(payload.comment as object),
      id: 880001,
      body: "Please add tests as well.",
      user: { login: "olive", id: 501, type: "User" },
    };
    const response = await deliver("issue_comment", { ...payload, comment });
    expect(response.status).toBe(202);
    const comments = await pollUntil(commentsOnIssue, (c) => c.some((b) => b.includes("Added a test")), {
      timeoutMs: 20_000,
    });
    expect(comments.filter((b) => b.includes("<!-- baton:agt_"))).toHaveLength(2);
  });

  it("the pull request merged on the code host: the signed 'closed' delivery shows on the task", async () => {
    await fake.merge(REPO, 2);
    const payload = await fixture("pull-request-closed");
    const response = await deliver("pull_request", {
      ...payload,
      number: 2,
      pull_request: {
        ...payload.pull_request,
        number: 2,
        merged: true,
        html_url: `${fake.webUrl}/${REPO}/pull/2`,
      },
      repository: { ...payload.repository, name: "api", full_name: REPO },
      sender: { login: "olive", id: 501, type: "User" },
      installation: { id: INSTALLATION },
    });
    expect(response.status).toBe(202);
    const task = await pollUntil(ourTask, (t) => t?.pullRequest?.merged === true, { timeoutMs: 20_000 });
    expect(task).toMatchObject({ status: "completed", pullRequest: { merged: true } });
  });

  it("no installation token, private key or webhook secret appears in anything the service printed or logged", () => {
    const output = serve.output();
    expect(fake.state.tokens.size).toBeGreaterThan(0);
    for (const token of fake.state.tokens.keys()) expect(output).not.toContain(token);
    expect(output).not.toContain(WEBHOOK_SECRET);
    expect(output).not.toContain("PRIVATE KEY");
  });
});
