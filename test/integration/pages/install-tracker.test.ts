// The tracker's install flow (issue 24 point 3) through the real public listener over a real SQLite file, with a
// signed-in browser played by a web-session cookie, against the loopback fake of Linear (no tracker is reachable
// from here; test/helpers/fake-tracker.ts speaks its OAuth protocol and checks the client id, the registered
// redirect URI and PKCE). An admin connects the workspace (actor=app), a member links their identity (then the
// ticket search reads as them), a declined access, each refused state, an organisation connected elsewhere, and
// the client secret and every token the fake issued never leave the store, where they are sealed.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_INTEGRATIONS } from "../../../src/server/adapters/integrations/settings.js";
import { findUserByEmail } from "../../../src/server/domain/auth/users.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import type { FakeTracker } from "../../helpers/fake-tracker.js";
import { dumpTestStore, openTestStore } from "../../helpers/test-store.js";
import { API_SEED, TOKENS } from "../api/harness.js";
import { CLIENT, createFakeLinear, ORG, PUBLIC_URL, REDIRECT_URI, USERS } from "../tracker/fixture.js";

const START = "/install/tracker";
let fake: FakeTracker;
let dir: string;
let db: Store;
let app: ServerApp;
const clock = { offsetMs: 0 };
const logs: string[] = [];
const answers: string[] = [];

beforeAll(async () => {
  fake = await createFakeLinear().start();
  dir = await mkdtemp(join(tmpdir(), "install-tracker-"));
  db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(API_SEED, "utf8"))),
    new Date(),
    secretBox,
  );
  app = createServerApp({
    db,
    secretBox,
    logger: pino({ level: "debug" }, { write: (line: string) => logs.push(line) }),
    now: () => new Date(Date.now() + clock.offsetMs),
    capability: { serviceUrl: PUBLIC_URL },
    tasks: { workRoot: join(dir, "work") },
    integrations: {
      ...LOCAL_INTEGRATIONS,
      tracker: {
        ...LOCAL_INTEGRATIONS.tracker,
        oauth: { clientId: CLIENT.id, clientSecret: CLIENT.secret, apiUrl: fake.url, webUrl: fake.url },
      },
    },
  });
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await db?.close();
  await fake?.stop();
  await rm(dir, { recursive: true, force: true });
});

const cookieOf = async (email: string) =>
  (await startWebSession(app.deps, (await findUserByEmail(db, email))!.id, false)).cookie;

async function get(path: string, cookie: string) {
  const response = await app.listeners.public.request(path, { headers: { cookie }, redirect: "manual" });
  const text = await response.text();
  answers.push(text, JSON.stringify([...response.headers]));
  return { status: response.status, text, location: response.headers.get("location") };
}

/** The browser at the tracker: the fake approves (or declines) as `userId` and sends it back to the callback. */
async function atTracker(authorizeUrl: string, userId: string): Promise<string> {
  fake.signedInUserId = userId;
  const answer = await fetch(authorizeUrl, { redirect: "manual" });
  expect(answer.status).toBe(302);
  const back = new URL(answer.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
  return `${back.pathname}${back.search}`;
}

/** Starts the flow as `email` in `workspace`, approves at the tracker as `trackerUser`, returns the callback page. */
async function runFlow(email: string, workspace: string, trackerUser: string) {
  const cookie = cookieOf(email);
  const start = await get(`${START}?workspace=${workspace}`, await cookie);
  expect(start.status, start.text).toBe(302);
  return { start, page: await get(await atTracker(start.location!, trackerUser), await cookie), cookie };
}

async function tickets(token: string) {
  const response = await app.listeners.public.request(API_PATHS.tickets("ws_acme"), {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as {
    tickets: { identifier: string }[];
    tracker: { connected: boolean; identityLinked: boolean; identityBound: boolean };
  };
}

describe("an owner or admin connects the workspace", () => {
  it("a member cannot start connecting a workspace whose tracker is not connected (403, ask an owner or admin)", async () => {
    const answer = await get(`${START}?workspace=ws_acme`, await cookieOf("dev@acme.test"));
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("only an owner or admin of Acme can connect its tracker; ask one of them");
  });

  it("the start redirects to <web>/oauth/authorize with actor=app, PKCE S256 and the callback as redirect_uri", async () => {
    const { start } = await runFlow("owner@acme.test", "ws_acme", USERS.olive);
    const url = new URL(start.location!);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT.id,
      redirect_uri: REDIRECT_URI,
      response_type: "code",
      scope: "read,write",
      code_challenge_method: "S256",
      actor: "app",
    });
  });

  it("the callback records the organisation, the app's user as the agent, and says to link one's own account", async () => {
    const row = (await db.get("SELECT * FROM tracker_connections WHERE workspace_id = 'ws_acme'")) as Record<
      string,
      unknown
    >;
    expect(row).toMatchObject({
      organization_id: ORG.acme.id,
      organization_name: ORG.acme.name,
      agent_user_id: USERS.app,
    });
    expect(String(row.token_sealed)).toMatch(/^bsk1\./);
    const page = answers.find((a) => a.includes("Tracker connected"));
    expect(page).toContain("Baton acts there as Baton");
    expect(page).toContain("link your own tracker account");
    expect(logs.some((l) => l.includes('"event":"tracker.connected"'))).toBe(true);
  });

  it("an organisation already connected to another workspace is refused with 409", async () => {
    const { page } = await runFlow("stranger@other.test", "ws_aaa_other", USERS.olive);
    expect(page.status).toBe(409);
    expect(page.text).toContain("already connected to another Baton workspace");
    expect(
      await db.get("SELECT count(*) AS n FROM tracker_connections WHERE workspace_id = 'ws_aaa_other'"),
    ).toEqual({ n: 0 });
  });
});

describe("what the callback connects is what the person authorised (issue 35 A.1, the tracker's side)", () => {
  // Nothing in the callback's query names an organisation: the organisation connected is the one the token
  // acts in (`viewer.organization`), and the token comes only from trading the code with the PKCE verifier
  // sealed in this member's own state. So the code cannot be swapped for one another person authorised.
  it("an owner who swaps another person's code into their own callback is refused by the tracker (PKCE) and nothing is connected", async () => {
    const theirs = await atTracker(
      (await get(`${START}?workspace=ws_acme`, await cookieOf("dev@acme.test"))).location!,
      USERS.dev,
    );
    const stolenCode = new URL(theirs, PUBLIC_URL).searchParams.get("code")!;
    const cookie = await cookieOf("stranger@other.test");
    const start = await get(`${START}?workspace=ws_aaa_other`, cookie);
    const own = new URL(await atTracker(start.location!, USERS.stranger), PUBLIC_URL);
    own.searchParams.set("code", stolenCode);
    own.searchParams.set("organization", ORG.acme.id);
    const page = await get(`${own.pathname}${own.search}`, cookie);
    expect(page.status).toBe(502);
    expect(page.text).toMatch(/invalid_grant/);
    expect(page.text).toMatch(/start again from \/install\/tracker\?workspace=ws_aaa_other/);
    expect(
      await db.get("SELECT count(*) AS n FROM tracker_connections WHERE workspace_id = 'ws_aaa_other'"),
    ).toEqual({ n: 0 });
    expect(logs.some((l) => l.includes('"event":"tracker.connected"') && l.includes("ws_aaa_other"))).toBe(
      false,
    );
  });
});

describe("a member links their own identity", () => {
  it("once connected, a member's start asks no actor=app, and the callback links them bound", async () => {
    const { start, page } = await runFlow("dev@acme.test", "ws_acme", USERS.dev);
    expect(new URL(start.location!).searchParams.get("actor")).toBeNull();
    expect(page.status).toBe(200);
    expect(page.text).toContain("Your tracker account Dev Eloper is linked in Acme");
    expect(
      await db.get(
        "SELECT tracker_identity, tracker_identity_bound FROM members WHERE email = 'dev@acme.test' AND workspace_id = 'ws_acme'",
      ),
    ).toEqual({
      tracker_identity: USERS.dev,
      tracker_identity_bound: 1,
    });
  });

  it("GET /v1/workspaces/{id}/tickets then shows identityLinked and identityBound, with issues read from the tracker as them", async () => {
    const answer = await tickets(TOKENS.dev);
    expect(answer.tracker).toEqual({ connected: true, identityLinked: true, identityBound: true });
    expect(answer.tickets.map((t) => t.identifier)).toEqual(expect.arrayContaining(["LIN-1", "LIN-2"]));
    expect(fake.log.filter((r) => r.operationName === "BatonSearchIssues").at(-1)?.userId).toBe(USERS.dev);
  });

  it("delegating a Linear issue by its identifier claims it in Linear: assigned to the member, the task linked", async () => {
    const response = await app.listeners.public.request(API_PATHS.delegate("ws_acme"), {
      method: "POST",
      headers: { authorization: `Bearer ${TOKENS.dev}`, "content-type": "application/json" },
      body: JSON.stringify({ source: "tracker", id: "LIN-2" }),
    });
    const body = await response.text();
    answers.push(body);
    expect(response.status, body).toBeLessThan(300);
    const task = (await db.get("SELECT id, source FROM tasks WHERE ticket_id = 'iss_2'")) as {
      id: string;
      source: string;
    };
    expect(task.source).toBe("tracker");
    const taskId = task.id;
    expect(fake.issues.find((i) => i.identifier === "LIN-2")?.assigneeId).toBe(USERS.dev);
    expect(fake.attachments.at(-1)).toMatchObject({
      issueId: "iss_2",
      url: `${PUBLIC_URL}/dashboard/workspaces/ws_acme/tasks/${taskId}`,
      userId: USERS.dev,
    });
  });

  it("an account of another organisation is linked unbound, and the page says which organisation to use", async () => {
    const { page } = await runFlow("nolink@acme.test", "ws_acme", USERS.stranger);
    expect(page.text).toContain("belongs to Other Co, but Acme is connected to Acme Linear");
    expect(await tickets(TOKENS.nolink).then((t) => t.tracker)).toEqual({
      connected: true,
      identityLinked: true,
      identityBound: false,
    });
  });

  it("a declined access says so and links nothing; the state is used up", async () => {
    const cookie = await cookieOf("unbound@acme.test");
    const start = await get(`${START}?workspace=ws_acme`, cookie);
    fake.decline = true;
    const callback = await atTracker(start.location!, USERS.zed).finally(() => {
      fake.decline = false;
    });
    expect(new URL(callback, PUBLIC_URL).searchParams.get("error")).toBe("access_denied");
    const page = await get(callback, cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain("You declined the tracker&#39;s request, so nothing was connected or linked");
    expect(
      await db.get(
        "SELECT tracker_identity FROM members WHERE email = 'unbound@acme.test' AND workspace_id = 'ws_acme'",
      ),
    ).toEqual({ tracker_identity: "ub-t" });
    expect((await get(callback, cookie)).text).toContain("this link was already used");
  });
});

describe("a state the callback refuses", () => {
  const begin = async (email = "dev@acme.test") => {
    const cookie = cookieOf(email);
    const start = await get(`${START}?workspace=ws_acme`, await cookie);
    return { cookie, callback: await atTracker(start.location!, USERS.dev) };
  };

  it.each([
    [
      "missing",
      async () => ({ cookie: cookieOf("dev@acme.test"), path: "/install/tracker/callback?code=abc" }),
      "this link carries no state",
    ],
    [
      "forged",
      async () => ({
        cookie: cookieOf("dev@acme.test"),
        path: "/install/tracker/callback?code=abc&state=bsk1.forged",
      }),
      "was not issued by this service",
    ],
    [
      "used",
      async () => {
        const { cookie, callback } = await begin();
        expect((await get(callback, await cookie)).status).toBe(200);
        return { cookie, path: callback };
      },
      "this link was already used",
    ],
    [
      "expired",
      async () => {
        const { cookie, callback } = await begin();
        clock.offsetMs = 11 * 60 * 1000;
        return { cookie, path: callback };
      },
      "this link expired (links last ten minutes)",
    ],
    [
      "someone else's",
      async () => {
        const { callback } = await begin();
        return { cookie: cookieOf("owner@acme.test"), path: callback };
      },
      "this link was started by another member",
    ],
  ])("%s: 400 with a page saying what to do", async (_what, arrange, reason) => {
    const { cookie, path } = await arrange();
    try {
      const answer = await get(path, await cookie);
      expect(answer.status).toBe(400);
      expect(answer.text).toContain(reason);
      expect(answer.text).toContain("start again from /install/tracker?workspace=");
    } finally {
      clock.offsetMs = 0;
    }
  });
});

describe("secrets", () => {
  it("the client secret and every token the tracker issued appear in no answer, no log line, and only sealed in the store", async () => {
    const secrets = [CLIENT.secret, ...fake.issuedSecrets()];
    expect(fake.issuedSecrets().length).toBeGreaterThan(4);
    const store = await dumpTestStore(db, dir);
    expect(store, "the dump holds the stored rows").toContain("owner@acme.test");
    for (const secret of secrets) {
      expect(answers.join("\n")).not.toContain(secret);
      expect(logs.join("\n")).not.toContain(secret);
      expect(store).not.toContain(secret);
    }
  });
});

describe("without an OAuth application", () => {
  it.each([START, `${START}/callback`])("%s answers 404 naming the flags the operator sets", async (path) => {
    const local = createServerApp({
      db,
      secretBox: ephemeralSecretBox(),
      logger: pino({ level: "silent" }),
      tasks: { workRoot: join(dir, "work-local") },
    });
    try {
      const cookie = (
        await startWebSession(local.deps, (await findUserByEmail(db, "owner@acme.test"))!.id, false)
      ).cookie;
      const response = await local.listeners.public.request(`${path}?workspace=ws_acme`, {
        headers: { cookie },
      });
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("--tracker-client-id and --tracker-client-secret-file");
    } finally {
      await local.stop();
    }
  });
});
