// The code-host App install flow (GET /install/codehost and its callback, the App's "Setup URL") through
// createServerApp's handler with a web session, against the loopback fake of GitHub: no code host is reachable
// from the test machine, so test/helpers/fake-codehost answers the installation page (302 back with
// installation_id, setup_action and the state, as GitHub does) and the App API the callback reads.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  installationById,
  installationOfRepo,
  recordInstallation,
} from "../../../src/server/adapters/codehost/installations.js";
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
import { startWebSession } from "../../../src/server/surfaces/pages/session.js";
import { expectNoCanary } from "../../helpers/canary.js";
import { type FakeCodehost, startFakeCodehost } from "../../helpers/fake-codehost/index.js";
import { openTestStore } from "../../helpers/test-store.js";
import { API_SEED } from "../api/harness.js";

interface Seen {
  status: number;
  text: string;
  location: string | null;
}

let dir: string;
let fake: FakeCodehost;
let db: Store;
let app: ServerApp;
const logs: string[] = [];
const seen: Seen[] = [];
const clock = { offsetMs: 0 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "install-codehost-"));
  fake = await startFakeCodehost();
  await fake.addRepo("acme/web");
  await fake.addRepo("acme/api");
  fake.addInstallation(501, "acme", ["acme/web", "acme/api"]);
  fake.addInstallation(502, "aardvark", ["aardvark/zoo"]);
  // Workspace A's organisation's installation whose own callback never finished, and workspace B's own one.
  await fake.addRepo("acme-labs/secret");
  fake.addInstallation(504, "acme-labs", ["acme-labs/secret"]);
  fake.addInstallation(505, "stranger-org", []);
  fake.state.setup.url = "http://baton.test/install/codehost/callback";
  fake.state.setup.installationId = 501;
  db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(API_SEED, "utf8"))),
    new Date(),
    secretBox,
  );
  await recordInstallation(
    db,
    { installationId: "502", workspaceId: "ws_aaa_other", accountLogin: "aardvark" },
    new Date(),
  );
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(line) });
  app = createServerApp({
    db,
    logger,
    secretBox,
    now: () => new Date(Date.now() + clock.offsetMs),
    integrations: { ...LOCAL_INTEGRATIONS, codehost: { ...LOCAL_INTEGRATIONS.codehost, app: fake.settings } },
    tasks: { workRoot: join(dir, "work") },
  });
  await app.start();
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await db?.close();
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

const cookieOf = async (email: string) =>
  (await startWebSession(app.deps, (await findUserByEmail(db, email))!.id, false)).cookie;

async function get(path: string, cookie: string): Promise<Seen> {
  const response = await app.http.request(path, { headers: { cookie }, redirect: "manual" });
  const answer = {
    status: response.status,
    text: await response.text(),
    location: response.headers.get("location"),
  };
  seen.push(answer);
  return answer;
}

/** Starts the flow as `email` and follows the fake's installation page: the callback's path and query. */
async function startInstall(email: string, workspace = "ws_acme"): Promise<string> {
  const start = await get(`/install/codehost?workspace=${workspace}`, await cookieOf(email));
  expect(start.status).toBe(302);
  expect(start.location).toMatch(new RegExp(`^${fake.webUrl}/apps/baton-test/installations/new\\?state=`));
  const page = await fetch(start.location!, { redirect: "manual" });
  expect(page.status).toBe(302);
  const back = new URL(page.headers.get("location")!);
  return back.pathname + back.search;
}

describe("GET /install/codehost and its callback", () => {
  it("with App settings, createServerApp gives the task service the GitHub adapter and sets deps.codehostApp", () => {
    expect(app.deps.tasks.codehost.kind).toBe("github");
    expect(app.deps.codehostApp).toBe(app.deps.tasks.codehost);
  });

  it("an owner installs: the installation and its repositories are recorded, and the page names the account and repositories", async () => {
    const callback = await startInstall("owner@acme.test");
    expect(callback).toMatch(/installation_id=501&setup_action=install&state=/);
    const done = await get(callback, await cookieOf("owner@acme.test"));
    expect(done.status).toBe(200);
    expect(done.text).toContain("acme");
    expect(done.text).toContain("<li>acme/web</li>");
    expect(done.text).toContain("<li>acme/api</li>");
    expect(await installationById(db, "501")).toMatchObject({ workspaceId: "ws_acme", accountLogin: "acme" });
    expect((await installationOfRepo(db, "ws_acme", "acme/api"))?.installationId).toBe("501");
    expect(logs.some((line) => line.includes('"event":"codehost.installed"'))).toBe(true);
  });

  it.each([
    ["a missing state", (cb: string) => cb.replace(/&state=[^&]*/, ""), /carries no state/],
    [
      "a forged state",
      (cb: string) => cb.replace(/state=[^&]*/, "state=forged"),
      /was not issued by this service/,
    ],
  ])("%s gets its refusal page (400)", async (_case, alter, message) => {
    const callback = alter(await startInstall("owner@acme.test"));
    const refused = await get(callback, await cookieOf("owner@acme.test"));
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(message);
  });

  it("a state used once is refused the second time (400, 'already used')", async () => {
    const callback = await startInstall("owner@acme.test");
    expect((await get(callback, await cookieOf("owner@acme.test"))).status).toBe(200);
    const again = await get(callback, await cookieOf("owner@acme.test"));
    expect(again.status).toBe(400);
    expect(again.text).toMatch(/already used/);
  });

  it("a state older than ten minutes is refused (400, 'expired')", async () => {
    const cookie = await cookieOf("owner@acme.test");
    const callback = await startInstall("owner@acme.test");
    clock.offsetMs = 11 * 60_000;
    try {
      const late = await get(callback, cookie);
      expect(late.status).toBe(400);
      expect(late.text).toMatch(/expired/);
    } finally {
      clock.offsetMs = 0;
    }
  });

  it("another member's state is refused (400, 'started by another member')", async () => {
    const callback = await startInstall("owner@acme.test");
    const other = await get(callback, await cookieOf("unbound@acme.test"));
    expect(other.status).toBe(400);
    expect(other.text).toMatch(/started by another member/);
  });

  it("an installation another workspace holds is a 409 page saying what to do", async () => {
    fake.state.setup.installationId = 502;
    try {
      const callback = await startInstall("owner@acme.test");
      const clash = await get(callback, await cookieOf("owner@acme.test"));
      expect(clash.status).toBe(409);
      expect(clash.text).toMatch(/connected to another workspace/);
      expect((await installationById(db, "502"))?.workspaceId).toBe("ws_aaa_other");
    } finally {
      fake.state.setup.installationId = 501;
    }
  });

  it("a member who is not an owner or admin gets 403 at the start", async () => {
    const refused = await get("/install/codehost?workspace=ws_acme", await cookieOf("dev@acme.test"));
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/only an owner or admin/);
  });

  it.each([
    ["missing", ""],
    ["not a number", "installation_id=abc&"],
  ])("an installation_id %s is a 400 page", async (_case, query) => {
    const refused = await get(
      `/install/codehost/callback?${query}setup_action=install&state=x`,
      await cookieOf("owner@acme.test"),
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/no valid installation_id/);
  });

  it("without App settings both routes answer 404 naming the flags the operator sets", async () => {
    const local = createServerApp({
      db,
      logger: pino({ level: "silent" }),
      secretBox: ephemeralSecretBox(),
      tasks: { workRoot: join(dir, "work-local") },
    });
    try {
      expect(local.deps.codehostApp).toBeUndefined();
      for (const path of [
        "/install/codehost?workspace=ws_acme",
        "/install/codehost/callback?installation_id=501",
      ]) {
        const response = await local.http.request(path, {
          headers: { cookie: await cookieOf("owner@acme.test") },
        });
        expect(response.status).toBe(404);
        expect(await response.text()).toMatch(/no code-host App configured.*--codehost-app-id/);
      }
    } finally {
      await local.stop();
    }
  });

  it("setup_action=request (the installation awaits the account owner's approval) is a 400 page saying so", async () => {
    const refused = await get(
      "/install/codehost/callback?setup_action=request&state=x",
      await cookieOf("owner@acme.test"),
    );
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/requested, not made/);
  });

  describe("the installation must be one the signed-in person can access on the code host", () => {
    /** Workspace B's owner starts their own install (of 505) and gets GitHub's callback, code and all. */
    async function strangerCallback(): Promise<string> {
      fake.state.setup.installationId = 505;
      try {
        return await startInstall("stranger@other.test", "ws_aaa_other");
      } finally {
        fake.state.setup.installationId = 501;
      }
    }

    it("an owner of workspace B who swaps in workspace A's organisation's installation id is refused (403), and nothing is connected", async () => {
      const callback = (await strangerCallback()).replace("installation_id=505", "installation_id=504");
      expect(callback).toMatch(/installation_id=504&setup_action=install&state=[^&]+&code=[0-9a-f]+$/);
      const refused = await get(callback, await cookieOf("stranger@other.test"));
      expect(refused.status).toBe(403);
      expect(refused.text).toMatch(/installation 504 is not one your code-host account can access/);
      expect(await installationById(db, "504")).toBeUndefined();
      expect(await installationOfRepo(db, "ws_aaa_other", "acme-labs/secret")).toBeUndefined();
      expect(fake.state.log.some((r) => r.path.startsWith("/user/installations") && r.status === 200)).toBe(
        true,
      );
      const audit = logs.find((line) => line.includes('"event":"codehost.install_refused"'));
      expect(audit).toBeDefined();
      expect(JSON.parse(audit!)).toMatchObject({
        actor: "stranger@other.test",
        workspace: "ws_aaa_other",
        installation: "504",
        reason: "not_yours",
      });
    });

    it("the rightful owner can then still connect it (200), where before they got a 409", async () => {
      fake.state.setup.installationId = 504;
      try {
        const done = await get(await startInstall("owner@acme.test"), await cookieOf("owner@acme.test"));
        expect(done.status).toBe(200);
        expect(done.text).toContain("<li>acme-labs/secret</li>");
      } finally {
        fake.state.setup.installationId = 501;
      }
      expect((await installationById(db, "504"))?.workspaceId).toBe("ws_acme");
    });

    it("the same owner's own installation connects (the rightful flow, workspace B)", async () => {
      const done = await get(await strangerCallback(), await cookieOf("stranger@other.test"));
      expect(done.status).toBe(200);
      expect(await installationById(db, "505")).toMatchObject({
        workspaceId: "ws_aaa_other",
        accountLogin: "stranger-org",
      });
    });

    it("a callback without `code` (the App does not request user authorization) is refused (400) saying the setting is needed, and nothing is connected", async () => {
      fake.state.setup.code = false;
      fake.state.setup.installationId = 502;
      try {
        const callback = await startInstall("owner@acme.test");
        expect(callback).not.toMatch(/code=/);
        const refused = await get(callback, await cookieOf("owner@acme.test"));
        expect(refused.status).toBe(400);
        expect(refused.text).toMatch(
          /no authorization code.*Request user authorization \(OAuth\) during installation/s,
        );
      } finally {
        fake.state.setup.code = true;
        fake.state.setup.installationId = 501;
      }
      expect((await installationById(db, "502"))?.workspaceId).toBe("ws_aaa_other");
      expect(logs.some((l) => l.includes('"reason":"no_code"'))).toBe(true);
    });

    it("a code the code host refuses (forged, or already traded) is refused (400), and nothing is connected", async () => {
      const callback = (await strangerCallback()).replace(/code=[0-9a-f]+/, "code=forged");
      const refused = await get(callback, await cookieOf("stranger@other.test"));
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/the code host refused the authorization code \(bad_verification_code/);
      expect(logs.some((l) => l.includes('"reason":"code_refused"'))).toBe(true);
    });
  });

  it("the App's private key, client secret, installation tokens and user-to-server tokens never appear in a response or a log line", () => {
    const tokens = [...fake.state.tokens.keys()];
    const userTokens = [...fake.state.userTokens.keys()];
    expect(tokens.length).toBeGreaterThan(0);
    expect(userTokens.length).toBeGreaterThan(0);
    const keyLines = fake.settings.privateKeyPem.split("\n").filter((l) => l && !l.startsWith("-----"));
    expectNoCanary(
      [...seen.map((s) => `${s.text}\n${s.location ?? ""}`), ...logs],
      [...tokens, ...userTokens, ...keyLines, fake.settings.clientSecret, "ghs_", "ghu_", "ghr_"],
    );
  });
});
