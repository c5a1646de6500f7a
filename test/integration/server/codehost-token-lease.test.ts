// Issue 24 point 4: "Agents push through the egress proxy with the installation token as a secret placeholder
// approved for the code host only, so the token never enters the box." The real handler, a real SQLite file and
// the real sandbox manager; two things are stand-ins, each for a reason: the code-host App API is a stub that
// returns a canary token (the GitHub helper builds the real adapter and its protocol fake in parallel), and the
// sandbox driver records the variables it is handed instead of starting a container (test/container covers the
// real drivers; here only the variables matter). The canary must reach the proxy's lease answer and nothing else.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import {
  LeasePolicyResponseSchema,
  PROXY_INTERNAL_PATHS,
  PROXY_TOKEN_HEADER,
} from "../../../src/proxy/lease/wire.js";
import type { CodehostAppApi } from "../../../src/server/codehost/app-api.js";
import {
  addInstallationRepos,
  type Installation,
  recordInstallation,
  setInstallationSuspended,
} from "../../../src/server/codehost/installations.js";
import { codehostPushOf, createPushAccessLookup } from "../../../src/server/codehost/push-access.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  openDatabase,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import { LOCAL_INTEGRATIONS } from "../../../src/server/integrations/settings.js";
import { resolveBoxEnv, type SandboxDriver } from "../../../src/server/sandboxes/driver.js";
import { SandboxManager } from "../../../src/server/sandboxes/manager.js";
import { createManagerSandboxes } from "../../../src/server/sandboxes/turn-sandboxes.js";
import { rememberActivatedRepository } from "../../../src/server/store/engagement-state.js";
import type { Database } from "../../../src/server/store/sqlite.js";
import { SEED_PATH } from "./harness.js";

const CANARY_TOKEN = "ghs_canaryInstallationToken7d2e9a41neverPrint";
const SEED_CANARY = "canary-db-7f3a9c1e-do-not-leak";
const PROXY_TOKEN = "test-proxy-token-abcdef0123456789";
const WEB_URL = "https://code.acme.test";
const DESTINATIONS = ["code.acme.test", "api.code.acme.test"];

interface World {
  app: ServerApp;
  db: Database;
  manager: SandboxManager;
  installation: Installation;
  mints: string[];
  log: () => string;
  created: Record<string, string>[];
  dir: string;
  close(): Promise<void>;
}

/** The App API stub: a canary token, or a failure, for every installation. */
function stubApp(mints: string[], failure: Error | null): CodehostAppApi {
  return {
    getInstallation: async (id) => ({ id, accountLogin: "acme" }),
    listInstallationRepos: async () => ["acme/api"],
    installationToken: async (id) => {
      mints.push(id);
      if (failure) throw failure;
      return { token: CANARY_TOKEN, expiresAt: new Date(Date.now() + 3_600_000) };
    },
    tokenDestinations: DESTINATIONS,
  };
}

/** Records the variables of each box it is asked to make; commands succeed without running. */
function recordingDriver(created: Record<string, string>[]): SandboxDriver {
  let n = 0;
  return {
    name: "namespace",
    home: "/home/agent",
    async create(spec) {
      const reach = { proxy: "100.72.0.1:40001", ops: "100.72.0.1:40002" };
      created.push(resolveBoxEnv(spec, reach));
      return { ref: `box-${++n}`, reach };
    },
    exec: async () => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false }),
    copyOut: async () => {},
    stop: async () => {},
    start: async () => {},
    remove: async () => {},
    exists: async () => true,
    reap: async () => [],
    detach: async () => {},
    close: async () => {},
  };
}

async function startWorld(options: { app: boolean; failure?: Error }): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), "baton-codehost-lease-"));
  const db = await openDatabase(join(dir, "serve.sqlite"));
  const secretBox = ephemeralSecretBox();
  applySeed(db, SeedDocumentSchema.parse(JSON.parse(readFileSync(SEED_PATH, "utf8"))), new Date(), secretBox);
  const installation = recordInstallation(
    db,
    { installationId: "4242", workspaceId: "ws_acme", accountLogin: "acme" },
    new Date(),
  );
  addInstallationRepos(db, installation, ["acme/api"]);
  let log = "";
  const logger = pino(
    { level: "debug" },
    {
      write: (line: string) => {
        log += line;
      },
    },
  );
  const mints: string[] = [];
  const codehostApp = options.app ? stubApp(mints, options.failure ?? null) : undefined;
  const integrations = {
    ...LOCAL_INTEGRATIONS,
    codehost: {
      ...LOCAL_INTEGRATIONS.codehost,
      app: options.app
        ? {
            appId: "1",
            appSlug: "baton",
            privateKeyPem: "unused",
            apiUrl: "https://api.code.acme.test",
            webUrl: WEB_URL,
          }
        : undefined,
    },
  };
  const created: Record<string, string>[] = [];
  const manager = new SandboxManager({
    db,
    driver: recordingDriver(created),
    defaultImage: "baton-sandbox:test",
    now: () => new Date(),
    logger,
    codehostPush: createPushAccessLookup(db, codehostPushOf(codehostApp, integrations.codehost.app)),
  });
  const app = createServerApp({
    db,
    logger,
    secretBox,
    proxyToken: PROXY_TOKEN,
    integrations,
    codehostApp,
    sandboxes: { current: manager },
  });
  return {
    app,
    db,
    manager,
    installation,
    mints,
    log: () => log,
    created,
    dir,
    async close() {
      await app.stop();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function leaseOf(world: World, lease: string) {
  const response = await world.app.http.request(PROXY_INTERNAL_PATHS.lease, {
    method: "POST",
    headers: { "content-type": "application/json", [PROXY_TOKEN_HEADER]: PROXY_TOKEN },
    body: JSON.stringify({ lease }),
  });
  expect(response.status).toBe(200);
  return LeasePolicyResponseSchema.parse(await response.json());
}

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the installation token behind a placeholder", () => {
  it("the lease answer carries the token for the proxy, approved for the App's token destinations only", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-push",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    const credentialId = world.installation.credentialId;
    expect(policy.secrets).toContainEqual({
      id: credentialId,
      placeholder: `baton-secret-${credentialId}`,
      value: CANARY_TOKEN,
      destinations: DESTINATIONS,
    });
    expect(world.mints).toEqual(["4242"]);
  });

  it("the box's variables carry the placeholder and git's header with it, never the token", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-push",
      repository: "acme/api",
    });
    const placeholder = `baton-secret-${world.installation.credentialId}`;
    expect(made.env.BATON_CODEHOST_TOKEN).toBe(placeholder);
    expect(made.env.GIT_CONFIG_KEY_0).toBe(`http.${WEB_URL}/.extraHeader`);
    expect(Buffer.from(made.env.GIT_CONFIG_VALUE_0!.split(" ").at(-1)!, "base64").toString()).toBe(
      `x-access-token:${placeholder}`,
    );
    await leaseOf(world, made.issued.lease);
    expect(JSON.stringify(world.created)).not.toContain(CANARY_TOKEN);
    expect(world.log()).not.toContain(CANARY_TOKEN);
  });

  it("a task's turn clones from the code host's web URL, its git sending the placeholder after the lease's header", async () => {
    world = await startWorld({ app: true });
    const turns = createManagerSandboxes({
      db: world.db,
      manager: () => world!.manager,
      root: join(world.dir, "turns"),
      pushAccess: createPushAccessLookup(world.db, {
        app: stubApp([], null),
        webUrl: WEB_URL,
      }),
      logger: pino({ level: "silent" }),
    });
    const task = { id: "tsk_push", workspaceId: "ws_acme", title: "t", repo: "acme/api", source: "api" };
    const sandbox = await turns.sandboxFor(task, turns.credentialsFor(task, new Date()));
    expect(sandbox.env).toMatchObject({
      BATON_GIT_URL: `${WEB_URL}/acme/api.git`,
      BATON_CODEHOST_TOKEN: `baton-secret-${world.installation.credentialId}`,
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_1: `http.${WEB_URL}/.extraHeader`,
    });
    // The local code host's lease header stays first and stays a secret of the turn.
    expect(sandbox.secrets.map((s) => s.name)).toContain("GIT_CONFIG_VALUE_0");
    expect(JSON.stringify(sandbox.env)).not.toContain(CANARY_TOKEN);
  });

  it("without an App (the local code host) nothing is minted and the box has no code-host token", async () => {
    world = await startWorld({ app: false });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-local",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets.map((s) => s.id)).not.toContain(world.installation.credentialId);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
    expect(made.env).not.toHaveProperty("GIT_CONFIG_COUNT");
  });

  it("a token that cannot be minted: the lease still answers with its other secrets, and a warning names the installation", async () => {
    world = await startWorld({ app: true, failure: new Error("the code host answered 502") });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-fail",
      repository: "acme/api",
    });
    const repo = world.db
      .prepare("SELECT id FROM repositories WHERE workspace_id = 'ws_acme' AND slug = 'acme/api'")
      .get() as {
      id: string;
    };
    rememberActivatedRepository(world.db, "eng-fail", repo.id);
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets.map((s) => s.value)).toEqual([SEED_CANARY]);
    const warning = world
      .log()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 40 && line.installationId === "4242");
    expect(warning).toMatchObject({
      credentialId: world.installation.credentialId,
      reason: "the code host answered 502",
    });
  });

  it("a suspended installation gives no token", async () => {
    world = await startWorld({ app: true });
    setInstallationSuspended(world.db, "4242", true);
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-susp",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets).toEqual([]);
    expect(world.mints).toEqual([]);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
  });

  it("a repository no installation gives (acme/web) gets no token, though the workspace has an installation", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-web",
      repository: "acme/web",
    });
    expect((await leaseOf(world, made.issued.lease)).secrets).toEqual([]);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
  });
});
