// The local tracker and the local code host's issues (the ports' implementations that hold issues in the store,
// seeded from the seed document), over a real store on the suite's engine (SQLite, or PostgreSQL in the postgres
// project: LIKE's case and the order of rows differ there): what a search returns to the ticket search, finding
// one issue, and the claim a delegation makes.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLocalIssues } from "../../../../../src/server/adapters/codehost/local-issues.js";
import { createLocalTracker } from "../../../../../src/server/adapters/tracker/local.js";
import { applySeed, ephemeralSecretBox, SeedDocumentSchema } from "../../../../../src/server/index.js";
import type { Store } from "../../../../../src/server/store/store.js";
import { openTestStore } from "../../../../helpers/test-store.js";

const opened: { db: Store; dir: string }[] = [];
afterEach(async () => {
  for (const { db, dir } of opened.splice(0)) {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});

async function world() {
  const dir = await mkdtemp(join(tmpdir(), "local-ports-"));
  const db = await openTestStore(dir);
  opened.push({ db, dir });
  await applySeed(
    db,
    SeedDocumentSchema.parse({
      workspaces: [
        {
          id: "ws_a",
          name: "A",
          repositories: [{ repository: "acme/api" }, { repository: "acme/web" }],
          tracker: {
            issues: [
              { id: "t1", identifier: "ENG-1", title: "Login page is BLANK", assignee: "me-t" },
              { id: "t2", identifier: "ENG-2", title: "Docs for the login", assignee: null },
              { id: "t3", identifier: "ENG-3", title: "Someone else's login", assignee: "zed-t" },
              { id: "t4", identifier: "ENG-4", title: "Closed login", state: "closed" },
              { id: "t5", identifier: "ENG-5", title: null, context: "login in the text only" },
            ],
          },
          codehost: {
            issues: [
              { repo: "acme/api", number: 1, title: "Crash on login", context: "stack trace in the parser" },
              { repo: "acme/api", number: 2, title: "Parser crash", assignee: "me" },
              { repo: "acme/api", number: 3, title: "A pull request", pullRequest: true },
              { repo: "acme/web", number: 1, title: "Button", assignee: "zed" },
              { repo: "acme/web", number: 2, title: "Closed", state: "closed" },
            ],
          },
        },
        { id: "ws_b", name: "B", tracker: { issues: [{ id: "tb", identifier: "ENG-1", title: "B's" }] } },
      ],
    }),
    new Date(),
    ephemeralSecretBox(),
  );
  return { db, tracker: createLocalTracker({ db }), codehost: createLocalIssues(db) };
}

const identifiers = (issues: { identifier: string }[]) => issues.map((i) => i.identifier);
const numbers = (issues: { repo: string; number: number }[]) => issues.map((i) => `${i.repo}#${i.number}`);

describe("local tracker", () => {
  it.each([
    [
      "no query: open issues assigned to the caller or to no one, in the tracker's order",
      null,
      ["ENG-1", "ENG-2", "ENG-5"],
    ],
    ["q is a substring of the title, in any case", "LOGIN", ["ENG-1", "ENG-2"]],
    ["q is not matched in the text", "in the text", []],
    ["q with several words is one substring", "login page", ["ENG-1"]],
  ])("search: %s", async (_case, q, expected) => {
    const { tracker } = await world();
    expect(
      identifiers(await tracker.searchIssues({ workspaceId: "ws_a", identity: "me-t", q, limit: 100 })),
    ).toEqual(expected);
  });

  it("search: at most limit; another workspace's issues never", async () => {
    const { tracker } = await world();
    expect(
      await tracker.searchIssues({ workspaceId: "ws_a", identity: "me-t", q: null, limit: 1 }),
    ).toHaveLength(1);
    expect(
      (await tracker.searchIssues({ workspaceId: "ws_b", identity: "me-t", q: null, limit: 100 })).map(
        (i) => i.id,
      ),
    ).toEqual(["tb"]);
  });

  it("find: by id or by identifier, in its workspace only; closed and others' issues are found (the service refuses them)", async () => {
    const { tracker } = await world();
    const find = (workspaceId: string, idOrIdentifier: string) =>
      tracker.findIssue({ workspaceId, identity: "me-t", idOrIdentifier });
    expect(await find("ws_a", "t2")).toMatchObject({
      id: "t2",
      identifier: "ENG-2",
      assignee: null,
      inProgress: false,
    });
    expect((await find("ws_a", "ENG-2"))?.id).toBe("t2");
    expect((await find("ws_b", "ENG-1"))?.id).toBe("tb");
    expect(await find("ws_b", "t1")).toBeUndefined();
    expect(await find("ws_a", "ENG-4")).toMatchObject({ state: "closed" });
    expect(await find("ws_a", "ENG-3")).toMatchObject({ assignee: "zed-t" });
  });

  it("claim: assigns an unassigned issue to the caller, keeps an assignee, and the issue is in progress from then on", async () => {
    const { tracker } = await world();
    await tracker.claimIssue({ workspaceId: "ws_a", issueId: "t2", identity: "me-t", taskId: "task_x" });
    await tracker.claimIssue({ workspaceId: "ws_a", issueId: "t3", identity: "me-t", taskId: "task_y" });
    expect(
      await tracker.findIssue({ workspaceId: "ws_a", identity: "me-t", idOrIdentifier: "t2" }),
    ).toMatchObject({
      assignee: "me-t",
      inProgress: true,
    });
    expect(
      (await tracker.findIssue({ workspaceId: "ws_a", identity: "me-t", idOrIdentifier: "t3" }))?.assignee,
    ).toBe("zed-t");
    expect(
      identifiers(await tracker.searchIssues({ workspaceId: "ws_a", identity: "me-t", q: null, limit: 100 })),
    ).toEqual(["ENG-1", "ENG-5"]);
  });
});

describe("local code host issues", () => {
  const repos = ["acme/api", "acme/web"];
  it.each([
    [
      "no query: open issues (not pull requests) assigned to the caller or to no one",
      null,
      ["acme/api#1", "acme/api#2"],
    ],
    ["q: every word in the title or the text, in any case", "PARSER login", ["acme/api#1"]],
    ["q: a word in the title", "crash", ["acme/api#1", "acme/api#2"]],
    ["q: a word that appears nowhere", "crash nowhere", []],
  ])("search: %s", async (_case, q, expected) => {
    const { codehost } = await world();
    expect(
      numbers(await codehost.searchIssues({ workspaceId: "ws_a", login: "me", repos, q, limit: 100 })),
    ).toEqual(expected);
  });

  it("search: only the repositories asked for", async () => {
    const { codehost } = await world();
    expect(
      await codehost.searchIssues({
        workspaceId: "ws_a",
        login: "me",
        repos: ["acme/web"],
        q: null,
        limit: 100,
      }),
    ).toEqual([]);
  });

  it("find: an issue or a pull request by repository and number; claim assigns and marks it in progress", async () => {
    const { codehost } = await world();
    expect(await codehost.findIssue({ workspaceId: "ws_a", repo: "acme/api", number: 3 })).toMatchObject({
      isPullRequest: true,
    });
    expect(await codehost.findIssue({ workspaceId: "ws_a", repo: "acme/api", number: 9 })).toBeUndefined();
    await codehost.claimIssue({
      workspaceId: "ws_a",
      repo: "acme/api",
      number: 1,
      login: "me",
      taskId: "task_z",
    });
    expect(await codehost.findIssue({ workspaceId: "ws_a", repo: "acme/api", number: 1 })).toMatchObject({
      assignee: "me",
      inProgress: true,
    });
    expect(
      numbers(await codehost.searchIssues({ workspaceId: "ws_a", login: "me", repos, q: null, limit: 100 })),
    ).toEqual(["acme/api#2"]);
  });
});
