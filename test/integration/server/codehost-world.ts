// A service with a code-host App installed for ws_acme's acme/api, in process: the real handler over a real
// SQLite file and the real sandbox manager. Two stand-ins, each for a reason: the App API is a stub that returns a
// canary token (the GitHub helper builds the real adapter and its protocol fake in parallel), and the sandbox
// driver records the variables it is handed instead of starting a container (test/container covers the real
// drivers; here only the variables matter).
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import type { CodehostAppApi } from "../../../src/server/adapters/codehost/app-api.js";
import {
  addInstallationRepos,
  type Installation,
  recordInstallation,
} from "../../../src/server/adapters/codehost/installations.js";
import { codehostPushOf, createPushAccessLookup } from "../../../src/server/adapters/codehost/push-access.js";
import { LOCAL_INTEGRATIONS } from "../../../src/server/adapters/integrations/settings.js";
import { resolveBoxEnv, type SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { SandboxManager } from "../../../src/server/adapters/sandboxes/manager.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { openTestStore } from "../../helpers/test-store.js";
import { SEED_PATH } from "./harness.js";

export const CANARY_TOKEN = "ghs_canaryInstallationToken7d2e9a41neverPrint";
export const SEED_CANARY = "canary-db-7f3a9c1e-do-not-leak";
export const PROXY_TOKEN = "test-proxy-token-abcdef0123456789";
export const WEB_URL = "https://code.acme.test";
export const DESTINATIONS = ["code.acme.test", "api.code.acme.test"];

export interface World {
  app: ServerApp;
  db: Store;
  manager: SandboxManager;
  installation: Installation;
  mints: string[];
  log: () => string;
  created: Record<string, string>[];
  dir: string;
  close(): Promise<void>;
}

/** The App API stub: a canary token, or a failure, for every installation. */
export function stubApp(
  mints: string[],
  failure: Error | null,
  destinations: readonly string[] = DESTINATIONS,
): CodehostAppApi {
  return {
    getInstallation: async (id) => ({ id, accountLogin: "acme" }),
    listInstallationRepos: async () => ["acme/api"],
    listUserInstallations: async () => ({ ok: true, installationIds: [] }),
    installationToken: async (id) => {
      mints.push(id);
      if (failure) throw failure;
      return { token: CANARY_TOKEN, expiresAt: new Date(Date.now() + 3_600_000) };
    },
    tokenDestinations: destinations,
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
    prepare: async () => {
      throw new Error("this fake driver keeps no pool (the manager is given none)");
    },
    handOut: async () => {
      throw new Error("this fake driver keeps no pool (the manager is given none)");
    },
    exec: async () => ({ exitCode: 0, stdout: "", stderr: "", timedOut: false }),
    spawn: async () => {
      throw new Error("no long-lived commands in this fake driver");
    },
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

export async function startWorld(options: {
  app: boolean;
  failure?: Error;
  webUrl?: string;
  destinations?: string[];
  proxyToken?: string;
}): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), "baton-codehost-lease-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(SEED_PATH, "utf8"))),
    new Date(),
    secretBox,
  );
  const installation = await recordInstallation(
    db,
    { installationId: "4242", workspaceId: "ws_acme", accountLogin: "acme" },
    new Date(),
  );
  await addInstallationRepos(db, await installation, ["acme/api"]);
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
  const codehostApp = options.app ? stubApp(mints, options.failure ?? null, options.destinations) : undefined;
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
            webUrl: options.webUrl ?? WEB_URL,
            clientId: "Iv1.unused",
            clientSecret: "unused",
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
    proxyToken: options.proxyToken ?? PROXY_TOKEN,
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
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
