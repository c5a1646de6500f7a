// The GitHub App adapter (src/server/adapters/codehost/github) against a loopback fake of GitHub: no code host is
// reachable from the test machine, so test/helpers/fake-codehost speaks its documented REST protocol and git's
// smart HTTP, checks the App JWT and installation tokens, and has knobs for rate limits and 5xx answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CodehostError } from "../../../src/server/adapters/codehost/port.js";
import { expectNoCanary } from "../../helpers/canary.js";
import { issueCode } from "../../helpers/fake-codehost/user-auth.js";
import { pollUntil } from "../../helpers/poll.js";
import { createGithubHarness, type GithubHarness, INSTALLATION, WORKSPACE } from "./github-harness.js";

let h: GithubHarness;
beforeAll(async () => {
  h = await createGithubHarness();
}, 60_000);
afterAll(() => h?.close());

const tokenRequests = () => h.fake.state.log.filter((r) => r.path.endsWith("/access_tokens")).length;
const base = { workspaceId: WORKSPACE };

describe("the Codehost port over GitHub", () => {
  it("gitUrl is <webUrl>/<owner>/<name>.git", async () => {
    expect(await h.adapter().gitUrl(WORKSPACE, "acme/web")).toBe(`${h.fake.webUrl}/acme/web.git`);
  });

  it("openPullRequest opens against the repository's default branch, and a second call finds the same one (422 then GET ?head=owner:branch&state=all)", async () => {
    const adapter = h.adapter();
    const { token } = await adapter.installationToken(String(INSTALLATION));
    await h.push("acme/api", "baton/task-1", token);
    const input = { ...base, repo: "acme/api", branch: "baton/task-1", title: "Fix it", taskId: "tsk_1" };
    const opened = await adapter.openPullRequest(input);
    expect(opened).toEqual({ number: 1, url: `${h.fake.webUrl}/acme/api/pull/1`, merged: false });
    expect(h.fake.state.repos.get("acme/api")!.issues[0]!.pull!.base).toBe("trunk");
    expect(await adapter.openPullRequest(input)).toEqual(opened);
    expect(h.fake.state.log.map((r) => r.path)).toContain(
      "/repos/acme/api/pulls?head=acme%3Abaton%2Ftask-1&state=all",
    );
  });

  it("openPullRequest sends body and draft; asking again for the same branch updates title and body (PATCH) and draft (GraphQL)", async () => {
    const adapter = h.adapter();
    const { token } = await adapter.installationToken(String(INSTALLATION));
    await h.push("acme/api", "baton/task-body", token);
    const input = { ...base, repo: "acme/api", branch: "baton/task-body", taskId: "tsk_b" };
    const opened = await adapter.openPullRequest({
      ...input,
      title: "One",
      body: "## Disclosure",
      draft: true,
    });
    const pull = () => h.fake.state.repos.get("acme/api")!.issues.find((i) => i.number === opened.number)!;
    expect(pull()).toMatchObject({ title: "One", body: "## Disclosure", pull: { draft: true } });
    expect(await adapter.openPullRequest({ ...input, title: "Two", body: "## Again" })).toEqual(opened);
    expect(pull()).toMatchObject({ title: "Two", body: "## Again", pull: { draft: true } });
    // Draft and back go through GraphQL (REST cannot change it); an unchanged state sends no mutation.
    await adapter.openPullRequest({ ...input, title: "Two", draft: false });
    expect(pull()).toMatchObject({ body: "## Again", pull: { draft: false } });
    await adapter.openPullRequest({ ...input, title: "Two", draft: false });
    await adapter.openPullRequest({ ...input, title: "Two", draft: true });
    expect(pull().pull!.draft).toBe(true);
    expect(h.fake.state.log.filter((r) => r.path === "/graphql")).toHaveLength(2);
    expect(h.fake.state.log.map((r) => `${r.method} ${r.path}`)).toContain(
      `PATCH /repos/acme/api/pulls/${opened.number}`,
    );
  });

  it("a branch that was never pushed is a CodehostError naming it", async () => {
    const call = h
      .adapter()
      .openPullRequest({ ...base, repo: "acme/web", branch: "nope", title: "t", taskId: "tsk_2" });
    await expect(call).rejects.toThrow(CodehostError);
    await expect(call).rejects.toThrow(/branch nope was not pushed to acme\/web/);
  });

  it("git refuses a push without a valid installation token (so pull requests need real pushes)", async () => {
    await expect(h.push("acme/web", "sneaky", "ghs_forged")).rejects.toThrow();
    expect(await h.fake.branchHead("acme/web", "sneaky")).toBeNull();
  });

  it("isMerged follows the pull request: false when open, true once merged", async () => {
    const adapter = h.adapter();
    const { token } = await adapter.installationToken(String(INSTALLATION));
    await h.push("acme/web", "baton/task-3", token);
    const { number } = await adapter.openPullRequest({
      ...base,
      repo: "acme/web",
      branch: "baton/task-3",
      title: "t",
      taskId: "tsk_3",
    });
    expect(await adapter.isMerged({ ...base, repo: "acme/web", number })).toBe(false);
    await h.fake.merge("acme/web", number);
    expect(await adapter.isMerged({ ...base, repo: "acme/web", number })).toBe(true);
  });

  it("readDefaultBranchFile reads the file's raw text from the default branch; a missing file is null", async () => {
    const text = '{\n  "setup": "npm ci"\n}\n';
    await h.fake.commitFile("acme/api", ".batonrc.json", text);
    const adapter = h.adapter();
    expect(await adapter.readDefaultBranchFile({ ...base, repo: "acme/api", path: ".batonrc.json" })).toBe(
      text,
    );
    expect(
      await adapter.readDefaultBranchFile({ ...base, repo: "acme/api", path: "missing.json" }),
    ).toBeNull();
  });

  it("a repository no installation gives the workspace is a CodehostError saying to install the App", async () => {
    await expect(h.adapter().findIssue({ ...base, repo: "other/secret", number: 1 })).rejects.toThrow(
      /install(s)? the App on it from \/install\/codehost\?workspace=ws_acme/,
    );
  });
});

describe("issues", () => {
  it("searchIssues: open issues (not pull requests) assigned to the member or to no one, matching the terms", async () => {
    const mine = h.fake.addIssue("acme/web", {
      title: "Login bug",
      body: "crash on login",
      assignee: "alice",
    });
    const free = h.fake.addIssue("acme/web", { title: "Login page slow" });
    h.fake.addIssue("acme/web", { title: "Login for bob", assignee: "bob" });
    const closed = h.fake.addIssue("acme/web", { title: "Login closed" });
    closed.state = "closed";
    h.fake.addIssue("acme/api", { title: "Unrelated" });
    const found = await h
      .adapter()
      .searchIssues({ ...base, login: "alice", repos: ["acme/web", "acme/api"], q: "login", limit: 10 });
    expect(found.map((i) => i.number)).toEqual([mine.number, free.number]);
    expect(found[0]).toMatchObject({
      id: String(mine.id),
      repo: "acme/web",
      assignee: "alice",
      isPullRequest: false,
      inProgress: false,
    });
    const limited = await h
      .adapter()
      .searchIssues({ ...base, login: "alice", repos: ["acme/web"], q: null, limit: 1 });
    expect(limited).toHaveLength(1);
    const query = h.fake.state.log.filter((r) => r.path.startsWith("/search/issues")).at(-1)!.path;
    expect(new URL(query, "http://x").searchParams.get("q")).toBe("is:issue is:open repo:acme/web");
  });

  it("searchIssues keeps only the asked repositories, whatever qualifiers the member's terms carry", async () => {
    const elsewhere = h.fake.addIssue("acme/api", { title: "Qualified escape" });
    const found = await h
      .adapter()
      .searchIssues({ ...base, login: "alice", repos: ["acme/web"], q: "escape repo:acme/api", limit: 10 });
    expect(found.map((i) => i.number)).not.toContain(elsewhere.number);
    expect(found).toEqual([]);
  });

  it("findIssue: the numeric id as a string, pull requests marked, a missing number undefined", async () => {
    const adapter = h.adapter();
    const issue = h.fake.addIssue("acme/web", { title: "Find me", body: "details" });
    expect(await adapter.findIssue({ ...base, repo: "acme/web", number: issue.number })).toMatchObject({
      id: String(issue.id),
      title: "Find me",
      context: "details",
      state: "open",
      isPullRequest: false,
      url: `${h.fake.webUrl}/acme/web/issues/${issue.number}`,
    });
    const pull = h.fake.state.repos.get("acme/web")!.issues.find((i) => i.pull)!;
    expect((await adapter.findIssue({ ...base, repo: "acme/web", number: pull.number }))?.isPullRequest).toBe(
      true,
    );
    expect(await adapter.findIssue({ ...base, repo: "acme/web", number: 9999 })).toBeUndefined();
  });

  it("claimIssue assigns an unassigned issue to the member and links the task in a comment; an assigned one keeps its assignee", async () => {
    const adapter = h.adapter();
    const free = h.fake.addIssue("acme/web", { title: "Free" });
    const taken = h.fake.addIssue("acme/web", { title: "Taken", assignee: "bob" });
    await adapter.claimIssue({
      ...base,
      repo: "acme/web",
      number: free.number,
      login: "alice",
      taskId: "tsk_9",
    });
    await adapter.claimIssue({
      ...base,
      repo: "acme/web",
      number: taken.number,
      login: "alice",
      taskId: "tsk_10",
    });
    expect(free.assignees).toEqual(["alice"]);
    expect(free.comments.map((c) => c.body)).toEqual(["Baton is working on this (task tsk_9)"]);
    expect(taken.assignees).toEqual(["bob"]);
    expect(taken.comments.map((c) => c.body)).toEqual(["Baton is working on this (task tsk_10)"]);
  });

  it("postComment posts the body on the issue", async () => {
    const issue = h.fake.addIssue("acme/api", { title: "Reply here" });
    await h
      .adapter()
      .postComment({ ...base, repo: "acme/api", number: issue.number, body: "Done: see the pull request." });
    expect(issue.comments.map((c) => c.body)).toEqual(["Done: see the pull request."]);
  });
});

describe("the App API", () => {
  it("getInstallation reads the account with the App JWT; an unknown installation is a CodehostError", async () => {
    const adapter = h.adapter();
    expect(await adapter.getInstallation(String(INSTALLATION))).toEqual({ id: "501", accountLogin: "acme" });
    expect(h.fake.state.log.at(-1)).toMatchObject({
      path: "/app/installations/501",
      auth: "jwt",
      status: 200,
    });
    await expect(adapter.getInstallation("999")).rejects.toThrow(CodehostError);
  });

  it("listInstallationRepos reads every page through the Link header (230 repositories, 3 pages of 100)", async () => {
    const names = Array.from({ length: 230 }, (_, i) => `big/repo-${i}`);
    h.fake.addInstallation(777, "big", names);
    const before = h.fake.state.log.length;
    expect(await h.adapter().listInstallationRepos("777")).toEqual(names);
    const pages = h.fake.state.log
      .slice(before)
      .filter((r) => r.path.startsWith("/installation/repositories"));
    expect(pages.map((r) => r.path)).toEqual([
      "/installation/repositories?per_page=100",
      "/installation/repositories?per_page=100&page=2",
      "/installation/repositories?per_page=100&page=3",
    ]);
  });

  it("listUserInstallations trades the code at <web>/login/oauth/access_token with the App's client id and secret, then reads every page of GET /user/installations (130 installations, 2 pages of 100)", async () => {
    const ids = Array.from({ length: 130 }, (_, i) => 9000 + i);
    for (const id of ids) h.fake.addInstallation(id, `org-${id}`, [], ["many-orgs"]);
    const before = h.fake.state.log.length;
    const access = await h.adapter().listUserInstallations(issueCode(h.fake.state, "many-orgs"));
    expect(access).toEqual({ ok: true, installationIds: ids.map(String) });
    expect(
      h.fake.state.log
        .slice(before)
        .map((r) => `${r.method} ${r.path} ${r.auth} ${r.status}`)
        .filter((line) => !line.includes("/access_tokens")),
    ).toEqual([
      "POST /login/oauth/access_token none 200",
      "GET /user/installations?per_page=100 token 200",
      "GET /user/installations?per_page=100&page=2 token 200",
    ]);
  });

  it("listUserInstallations: a code already traded (or forged) is the code host's refusal as a value, not a throw", async () => {
    const code = issueCode(h.fake.state, "acme-admin");
    expect(await h.adapter().listUserInstallations(code)).toEqual({ ok: true, installationIds: ["501"] });
    expect(await h.adapter().listUserInstallations(code)).toEqual({
      ok: false,
      refusal: "bad_verification_code: The code passed is incorrect or expired.",
    });
    expect(await h.adapter().listUserInstallations("forged")).toMatchObject({ ok: false });
  });

  it("the fake, as GitHub, refuses GET /user/installations with an installation token (403)", async () => {
    const { token } = await h.adapter().installationToken("501");
    const answer = await fetch(`${h.fake.apiUrl}/user/installations`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(403);
  });

  it("installation tokens: concurrent callers share one request; the token is kept, and renewed 5 minutes before it expires", async () => {
    const adapter = h.adapter();
    const before = tokenRequests();
    const [a, b] = await Promise.all([adapter.installationToken("501"), adapter.installationToken("501")]);
    expect(a.token).toBe(b.token);
    expect(a.token).toMatch(/^ghs_/);
    expect(tokenRequests()).toBe(before + 1);
    expect((await adapter.installationToken("501")).token).toBe(a.token);
    // Both clocks move: the fake checks the new App JWT's iat against its own.
    const advance = (toExpiryMs: number) => {
      adapter.clock.offsetMs = a.expiresAt.getTime() - Date.now() - toExpiryMs;
      h.fake.state.clockOffsetMs = adapter.clock.offsetMs;
    };
    try {
      advance(6 * 60_000);
      expect((await adapter.installationToken("501")).token).toBe(a.token);
      advance(4 * 60_000);
      const renewed = await adapter.installationToken("501");
      expect(renewed.token).not.toBe(a.token);
      expect(tokenRequests()).toBe(before + 2);
    } finally {
      h.fake.state.clockOffsetMs = 0;
    }
  });

  it("the fake refuses an installation token after its expires_at (401)", async () => {
    const { token } = await h.adapter().installationToken("501");
    h.fake.state.clockOffsetMs = 2 * 60 * 60_000;
    try {
      const answer = await fetch(`${h.fake.apiUrl}/repos/acme/web`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(answer.status).toBe(401);
    } finally {
      h.fake.state.clockOffsetMs = 0;
    }
  });

  it("tokenDestinations are the web and API hosts", () => {
    const origin = new URL(h.fake.webUrl).origin;
    expect(h.adapter().tokenDestinations).toEqual([`${origin}/`]);
  });
});

describe("retries and rate limits", () => {
  const read = (adapter = h.adapter()) => adapter.getInstallation("501");

  it("network-level 5xx answers are retried until one succeeds", async () => {
    h.fake.failNext(2, 502);
    const before = h.fake.state.log.length;
    expect((await read()).accountLogin).toBe("acme");
    expect(h.fake.state.log.slice(before).map((r) => r.status)).toEqual([502, 502, 200]);
  });

  it("a request that outlasts its timeout is abandoned and retried", async () => {
    h.fake.stallNext(1, 1_500);
    const before = h.fake.state.log.length;
    const started = Date.now();
    expect((await read(h.adapter({ timeoutMs: 300 }))).accountLogin).toBe("acme");
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(h.logs.some((line) => line.includes("TimeoutError"))).toBe(true);
    // The abandoned request still ends on the fake's side; wait for it so later tests read a quiet log.
    const answered = await pollUntil(
      () => h.fake.state.log.length - before,
      (n) => n >= 2,
      { timeoutMs: 5_000 },
    );
    expect(answered).toBe(2);
  });

  it("5xx past the retries is a CodehostError saying to try again later", async () => {
    h.fake.failNext(10, 503);
    try {
      await expect(read()).rejects.toThrow(/did not answer GET .*answered 503.*try again later/);
    } finally {
      h.fake.failNext(0);
    }
  });

  it("a spent primary limit (403, x-ratelimit-remaining: 0) waits until x-ratelimit-reset, then succeeds", async () => {
    h.fake.exhaustPrimary(1);
    const before = h.fake.state.log.length;
    const started = Date.now();
    expect((await read()).accountLogin).toBe("acme");
    expect(h.fake.state.log.slice(before).map((r) => r.status)).toEqual([403, 200]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  });

  it("a primary limit resetting past maxWaitMs fails at once, saying when to try again", async () => {
    h.fake.exhaustPrimary(3600);
    try {
      const started = Date.now();
      await expect(read()).rejects.toThrow(/hourly rate limit; try again after \d{4}-\d\d-\d\dT/);
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      h.fake.exhaustPrimary(0);
    }
  });

  it("a secondary limit with retry-after waits that long, then succeeds", async () => {
    h.fake.secondaryLimit(1, 1);
    const started = Date.now();
    expect((await read()).accountLogin).toBe("acme");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("a secondary limit without retry-after waits at least a minute: past maxWaitMs it fails saying when", async () => {
    h.fake.secondaryLimit(1, null);
    await expect(read()).rejects.toThrow(/secondary rate limit; try again after/);
  });

  it("never logs a token, a user-to-server token, the client secret or the App's private key", async () => {
    const { token } = await h.adapter().installationToken("501");
    await h.adapter().listUserInstallations(issueCode(h.fake.state, "acme-admin"));
    const userTokens = [...h.fake.state.userTokens.keys()];
    expect(userTokens.length).toBeGreaterThan(0);
    const keyBody = h.fake.settings.privateKeyPem.split("\n")[1]!;
    expectNoCanary(h.logs, [token, keyBody, "ghs_", "ghu_", ...userTokens, h.fake.settings.clientSecret]);
  });
});
