// The Linear adapter of the tracker port against the loopback fake (no tracker is reachable from here; the fake
// speaks Linear's OAuth and GraphQL protocol, test/helpers/fake-tracker.ts), over a real SQLite store with the
// tokens sealed: the search and find read as the member with their own token, a claim assigns and links, replies
// post as the app, a token near its expiry is refreshed and stored again, and rate limits are waited out.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TrackerOAuthSettings } from "../../../src/server/adapters/integrations/settings.js";
import {
  linkMemberIdentity,
  openMemberTokensByIdentity,
  recordConnection,
  storeMemberTokens,
} from "../../../src/server/adapters/tracker/connections.js";
import {
  buildAuthorizationUrl,
  createLinearTracker,
  createPkceVerifier,
  exchangeCode,
  type LinearTrackerOptions,
} from "../../../src/server/adapters/tracker/linear/index.js";
import { LINEAR_OPERATIONS } from "../../../src/server/adapters/tracker/linear/wire.js";
import type { Tracker } from "../../../src/server/adapters/tracker/port.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import { applySeed, ephemeralSecretBox, SeedDocumentSchema } from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import type { FakeTracker } from "../../helpers/fake-tracker.js";
import { openTestStore } from "../../helpers/test-store.js";
import { API_SEED } from "../api/harness.js";
import { CLIENT, createFakeLinear, issues, ORG, REDIRECT_URI, USERS } from "./fixture.js";

const WS = "ws_acme";
const DEV = "dev@acme.test";
let fake: FakeTracker;
let dir: string;
let db: Store;
const box = ephemeralSecretBox();
const logs: string[] = [];
const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(line) });
let settings: TrackerOAuthSettings;
const waits: number[] = [];

beforeAll(async () => {
  fake = await createFakeLinear().start();
  settings = { clientId: CLIENT.id, clientSecret: CLIENT.secret, apiUrl: fake.url, webUrl: fake.url };
  dir = await mkdtemp(join(tmpdir(), "linear-adapter-"));
  db = await openTestStore(dir);
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(await readFile(API_SEED, "utf8"))),
    new Date(),
    box,
  );
});
afterAll(async () => {
  await fake?.stop();
  await db?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the OAuth flow against the fake as `userId` (the browser's part played by fetch with manual redirects). */
async function authorizeAs(userId: string, purpose: "connect" | "link") {
  fake.signedInUserId = userId;
  const verifier = createPkceVerifier();
  const url = buildAuthorizationUrl({ settings, redirectUri: REDIRECT_URI, state: "s", verifier, purpose });
  const answer = await fetch(url, { redirect: "manual" });
  const code = new URL(answer.headers.get("location")!).searchParams.get("code")!;
  return exchangeCode(
    { settings, fetch, now: () => new Date() },
    { code, verifier, redirectUri: REDIRECT_URI },
  );
}

async function connect() {
  const devUser = (await findUserByEmail(db, DEV))!;
  await recordConnection(
    db,
    box,
    {
      workspaceId: WS,
      organizationId: ORG.acme.id,
      organizationName: ORG.acme.name,
      agentUserId: USERS.app,
      tokens: await authorizeAs(USERS.olive, "connect"),
    },
    new Date(),
  );
  await linkMemberIdentity(db, box, {
    workspaceId: WS,
    userId: devUser.id,
    email: DEV,
    identity: USERS.dev,
    bound: true,
    tokens: await authorizeAs(USERS.dev, "link"),
  });
}

const make = (over: Partial<LinearTrackerOptions> = {}): Tracker =>
  createLinearTracker({
    db,
    box,
    settings,
    logger,
    now: () => new Date(),
    taskUrl: (ws, task) => `https://baton.example.test/dashboard/workspaces/${ws}/tasks/${task}`,
    policy: { minBackoffMs: 1, maxRateLimitWaitMs: 2_000 },
    sleep: async (ms) => {
      waits.push(ms);
      await new Promise((resolve) => setTimeout(resolve, ms));
    },
    ...over,
  });

beforeEach(async () => {
  fake.issues.splice(0, fake.issues.length, ...issues());
  fake.comments.length = 0;
  fake.attachments.length = 0;
  fake.log.length = 0;
  fake.refuseAttachments = false;
  fake.hang = 0;
  fake.rateLimit = { remaining: 0, resetInMs: 0, status: 400 };
  fake.expiresInSeconds = 86_399;
  waits.length = 0;
  await connect();
});
afterEach(() => {
  // Nothing the fake issued, nor the client secret, is ever logged.
  expect(logs.join("\n")).not.toContain(CLIENT.secret);
  for (const secret of fake.issuedSecrets()) expect(logs.join("\n")).not.toContain(secret);
});

describe("searchIssues reads as the member", () => {
  const search = (q: string | null, limit = 10) =>
    make().searchIssues({ workspaceId: WS, identity: USERS.dev, q, limit });

  it("open issues (state type not completed or canceled) assigned to the identity or to no one", async () => {
    const found = await search(null);
    expect(found.map((i) => i.identifier)).toEqual(["LIN-1", "LIN-2", "LIN-5"]);
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues).map((c) => c.userId)).toEqual([USERS.dev]);
  });

  it("q matches the title in any case; first: limit", async () => {
    expect((await search("login")).map((i) => i.identifier)).toEqual(["LIN-1", "LIN-5"]);
    expect((await search("LOGIN", 1)).map((i) => i.identifier)).toEqual(["LIN-1"]);
  });

  it("maps Linear's issue to the port's: description as context, started as in progress, assignee's id", async () => {
    const [one, , five] = await search(null);
    expect(one).toMatchObject({
      id: "iss_1",
      title: "Login page shows a blank screen",
      context: "Since the deploy.",
    });
    expect(one).toMatchObject({ state: "open", assignee: USERS.dev, inProgress: false });
    expect(one!.url).toBe(`${fake.url}/issue/LIN-1`);
    expect(five).toMatchObject({ identifier: "LIN-5", inProgress: true, assignee: null, context: "" });
  });

  it("an identity with no linked token is refused saying how to link it", async () => {
    await expect(
      make().searchIssues({ workspaceId: WS, identity: "usr_nobody", q: null, limit: 5 }),
    ).rejects.toThrow(/links their identity again at \/install\/tracker\?workspace=ws_acme/);
  });
});

describe("findIssue", () => {
  const find = (idOrIdentifier: string) =>
    make().findIssue({ workspaceId: WS, identity: USERS.dev, idOrIdentifier });

  it.each([
    ["its id", "iss_3", "LIN-3"],
    ["its identifier", "LIN-3", "LIN-3"],
    ["a closed one", "LIN-4", "LIN-4"],
  ])("finds an issue by %s", async (_what, key, identifier) => {
    expect((await find(key))?.identifier).toBe(identifier);
  });

  it.each([
    ["no such issue", "LIN-99"],
    ["another organisation's issue", "OTH-1"],
  ])("%s is undefined (Linear's 'Entity not found')", async (_what, key) => {
    expect(await find(key)).toBeUndefined();
  });

  it("reads a closed issue as closed", async () => {
    expect((await find("LIN-6"))?.state).toBe("closed");
  });
});

describe("claimIssue", () => {
  const claim = (issueId: string) =>
    make().claimIssue({ workspaceId: WS, issueId, identity: USERS.dev, taskId: "tsk_1" });
  const taskUrl = "https://baton.example.test/dashboard/workspaces/ws_acme/tasks/tsk_1";

  it("assigns an unassigned issue to the member, then links the task as an attachment", async () => {
    await claim("iss_2");
    expect(fake.issues.find((i) => i.id === "iss_2")?.assigneeId).toBe(USERS.dev);
    expect(fake.attachments).toEqual([
      { issueId: "iss_2", url: taskUrl, title: "Baton task tsk_1", userId: USERS.dev },
    ]);
  });

  it("leaves an issue's assignee alone when it has one", async () => {
    await claim("iss_1");
    expect(fake.calls(LINEAR_OPERATIONS.assignIssue)).toHaveLength(0);
    expect(fake.attachments).toHaveLength(1);
  });

  it("links the task in a comment when the organisation refuses link attachments", async () => {
    fake.refuseAttachments = true;
    await claim("iss_2");
    expect(fake.comments).toEqual([
      { issueId: "iss_2", body: `Baton is working on this: ${taskUrl}`, userId: USERS.dev },
    ]);
  });
});

describe("postComment", () => {
  it("posts with the workspace's own token: the comment is the app's", async () => {
    await make().postComment({ workspaceId: WS, issueId: "iss_1", body: "Done: fixed the login page" });
    expect(fake.comments).toEqual([
      { issueId: "iss_1", body: "Done: fixed the login page", userId: USERS.app },
    ]);
  });
});

describe("tokens near expiry", () => {
  it("a member's token within five minutes of expiry is refreshed once, stored sealed, and used", async () => {
    fake.expiresInSeconds = 120;
    await connect();
    const before = (await openMemberTokensByIdentity(db, box, WS, USERS.dev))!.tokens;
    fake.expiresInSeconds = 86_399;
    fake.log.length = 0;
    const tracker = make();
    // Two calls at once share one refresh (Linear rotates refresh tokens: a second refresh would fail).
    await Promise.all([
      tracker.searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 }),
      tracker.findIssue({ workspaceId: WS, identity: USERS.dev, idOrIdentifier: "LIN-1" }),
    ]);
    const refreshes = fake.log.filter((r) => r.form?.grant_type === "refresh_token");
    expect(refreshes).toHaveLength(1);
    const after = (await openMemberTokensByIdentity(db, box, WS, USERS.dev))!.tokens;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(after.expiresAtMs! - Date.now()).toBeGreaterThan(86_000_000);
    const stored = JSON.stringify(await db.all("SELECT * FROM tracker_member_tokens"));
    expect(stored).not.toContain(after.accessToken);
  });

  it("a 401 for a token good by our clock gets one forced refresh and one more try", async () => {
    const before = (await openMemberTokensByIdentity(db, box, WS, USERS.dev))!.tokens;
    fake.expireTokensOf(USERS.dev);
    fake.log.length = 0;
    const found = await make().searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 });
    expect(found).toHaveLength(3);
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues).map((c) => c.userId)).toEqual([undefined, USERS.dev]);
    expect(fake.log.filter((r) => r.form?.grant_type === "refresh_token")).toHaveLength(1);
    expect((await openMemberTokensByIdentity(db, box, WS, USERS.dev))!.tokens.accessToken).not.toBe(
      before.accessToken,
    );
  });

  it("a token far from expiry is not refreshed", async () => {
    fake.log.length = 0;
    await make().searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 });
    expect(fake.log.filter((r) => r.path === "/oauth/token")).toHaveLength(0);
  });
});

describe("rate limits", () => {
  it.each([
    ["HTTP 400 with extensions.code RATELIMITED", 400],
    ["HTTP 429", 429],
  ])("%s is waited out until X-RateLimit-Requests-Reset, then the call succeeds", async (_what, status) => {
    fake.rateLimit = { remaining: 2, resetInMs: 150, status };
    const found = await make().searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 });
    expect(found).toHaveLength(3);
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues)).toHaveLength(3);
    expect(waits).toHaveLength(2);
    for (const ms of waits) expect(ms).toBeGreaterThan(50);
    for (const ms of waits) expect(ms).toBeLessThanOrEqual(150);
  });

  it("an attempt the tracker never answers is abandoned after attemptTimeoutMs and tried again", async () => {
    fake.hang = 1;
    const started = Date.now();
    const found = await make({ policy: { minBackoffMs: 1, attemptTimeoutMs: 300 } }).searchIssues({
      workspaceId: WS,
      identity: USERS.dev,
      q: null,
      limit: 5,
    });
    expect(found).toHaveLength(3);
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues)).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it("a reset beyond the bound fails at once, saying it is rate limited, without the token", async () => {
    fake.rateLimit = { remaining: 1, resetInMs: 60_000, status: 400 };
    const error = await make()
      .searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 })
      .then(
        () => new Error("resolved"),
        (e: unknown) => e as Error,
      );
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/Rate limit exceeded \(rate limited for \d+ s more; try again later\)/);
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues)).toHaveLength(1);
    for (const secret of fake.issuedSecrets()) expect(error.message).not.toContain(secret);
  });

  it("a token the tracker refuses fails without a retry, the error naming the operation, never the token", async () => {
    const bogus = "lin_oauth_canary-revoked-0a9b8c";
    await storeMemberTokens(db, box, WS, (await findUserByEmail(db, DEV))!.id, {
      accessToken: bogus,
      refreshToken: null,
      expiresAtMs: null,
    });
    const error = await make()
      .searchIssues({ workspaceId: WS, identity: USERS.dev, q: null, limit: 5 })
      .then(
        () => new Error("resolved"),
        (e: unknown) => e as Error,
      );
    expect(error.message).toBe(
      `the tracker's ${LINEAR_OPERATIONS.searchIssues} failed: Authentication required, not authenticated`,
    );
    expect(fake.calls(LINEAR_OPERATIONS.searchIssues)).toHaveLength(1);
    expect(error.message).not.toContain(bogus);
  });
});
