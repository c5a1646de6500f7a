// The local code host over git's smart HTTP protocol (what a sandbox box clones from and pushes to): real git
// against `baton serve`'s handler on a real socket, authenticated with a sandbox lease sent as an extra header
// from the environment (never in the remote URL); a lease reaches only its own workspace's connected repositories.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boxGitEnvironment, boxGitUrl } from "../../../src/server/adapters/codehost/box-git.js";
import { getBox, insertBox } from "../../../src/server/adapters/sandboxes/store.js";
import { createNodeServer } from "../../../src/server/surfaces/http/node-server.js";
import { type Credentials, createHarness, type Harness } from "./harness.js";

let harness: Harness;
let server: Server;
let reach: string;
let work: string;
let acme: Credentials;
const canaryLeaseUser = "canary-git-user";

const git = (args: string[], env: Record<string, string>, cwd = work) =>
  execa("git", args, {
    cwd,
    reject: false,
    env: {
      ...env,
      GIT_TERMINAL_PROMPT: "0",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: work,
      GIT_AUTHOR_NAME: "Agent",
      GIT_AUTHOR_EMAIL: "agent@acme.test",
      GIT_COMMITTER_NAME: "Agent",
      GIT_COMMITTER_EMAIL: "agent@acme.test",
    },
  });

beforeAll(async () => {
  harness = await createHarness();
  // Boxes clone through the sandbox listener, the only one their forwarder reaches.
  server = createNodeServer(harness.app.listeners.sandbox.fetch);
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const address = server.address();
  reach = `127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  work = await mkdtemp(join(tmpdir(), "baton-codehost-http-"));
  acme = await harness.sandbox("ws_acme", "eng-git");
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((closed) => server?.close(() => closed()));
  await harness?.close();
  await rm(work, { recursive: true, force: true });
});

describe("the local code host over smart HTTP", () => {
  it("clones, and pushes a branch the code host then opens a pull request for", async () => {
    const env = boxGitEnvironment(reach, acme.lease);
    const clone = await git(["clone", "--quiet", boxGitUrl(reach, "acme/api"), "api"], env);
    expect(clone.stderr).toBe("");
    expect(clone.exitCode).toBe(0);
    const checkout = join(work, "api");
    // The lease went in a header, never into the clone's configuration.
    expect(await readFile(join(checkout, ".git", "config"), "utf8")).not.toContain(acme.lease);
    await git(["checkout", "--quiet", "-b", "fix/login"], env, checkout);
    await git(["commit", "--quiet", "--allow-empty", "-m", "fix the login page"], env, checkout);
    const push = await git(["push", "--quiet", "origin", "HEAD:refs/heads/fix/login"], env, checkout);
    expect(push.stderr).toBe("");
    expect(push.exitCode).toBe(0);
    const opened = await harness.app.deps.tasks.codehost.openPullRequest({
      workspaceId: "ws_acme",
      repo: "acme/api",
      branch: "fix/login",
      title: "Fix the login page",
      taskId: "task_git",
    });
    expect(opened.number).toBe(1);
  });

  it("a use of the lease is sandbox activity (the idle stop's clock starts again)", async () => {
    const sandbox = await harness.sandbox("ws_acme", "eng-git-activity");
    // The box row as the sandbox manager records it; only its activity time matters here.
    await insertBox(harness.db, {
      sandboxId: sandbox.sandboxId,
      workspaceId: "ws_acme",
      engagementId: sandbox.engagementId,
      driver: "docker",
      boxRef: "box-activity",
      image: "baton-sandbox:test",
      repository: "acme/api",
      state: "running",
      lastActivityAtMs: 1000,
      stateChangedAtMs: 1000,
      createdAtMs: 1000,
      reach: {},
      batonrc: null,
    });
    const response = await fetch(
      `http://${reach}/codehost/v1/git/acme/api.git/info/refs?service=git-upload-pack`,
      { headers: headersOf(boxGitEnvironment(reach, sandbox.lease)) },
    );
    expect(response.status).toBe(200);
    expect((await getBox(harness.db, sandbox.sandboxId))!.lastActivityAtMs).toBeGreaterThan(
      Date.now() - 60_000,
    );
  });

  it.each([
    ["no credentials", () => ({}), 401],
    ["a wrong lease", () => boxGitEnvironment(reach, "btl_not-a-lease"), 401],
    ["a user name but no password", () => basicHeader(`${canaryLeaseUser}:`), 401],
  ])("refuses %s with 401 and a Basic challenge", async (_what, envOf, status) => {
    const response = await fetch(
      `http://${reach}/codehost/v1/git/acme/api.git/info/refs?service=git-upload-pack`,
      {
        headers: headersOf(envOf()),
      },
    );
    expect(response.status).toBe(status);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="baton code host"');
  });

  it("answers 404 for another workspace's repository, an unknown one, and the dumb protocol's files", async () => {
    const legacy = await harness.sandbox("ws_legacy", "eng-git-legacy");
    const cases = [
      [legacy.lease, "acme/api.git/info/refs?service=git-upload-pack"], // not legacy's workspace
      [acme.lease, "acme/nope.git/info/refs?service=git-upload-pack"],
      [acme.lease, "acme/api.git/HEAD"],
      [acme.lease, "acme/api.git/objects/info/packs"],
    ] as const;
    for (const [lease, path] of cases) {
      const response = await fetch(`http://${reach}/codehost/v1/git/${path}`, {
        headers: headersOf(boxGitEnvironment(reach, lease)),
      });
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
    const clone = await git(["clone", "--quiet", boxGitUrl(reach, "acme/api"), "legacy-api"], {
      ...boxGitEnvironment(reach, legacy.lease),
    });
    expect(clone.exitCode).not.toBe(0);
  });
});

function basicHeader(userPassword: string): Record<string, string> {
  return {
    GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(userPassword).toString("base64")}`,
  };
}

function headersOf(env: Record<string, string>): Record<string, string> {
  const value = env.GIT_CONFIG_VALUE_0;
  if (!value) return {};
  const colon = value.indexOf(":");
  return { [value.slice(0, colon)]: value.slice(colon + 1).trim() };
}
