// Shared set-up for the capability end-to-end suites: a seed with owners, an admin, a member and an outsider, a
// real `baton serve` (on the suite's engine) with a real SMTP server on loopback, a sandbox, and helpers to drive
// the CLI and the workspace routes.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { ADMIN_PATHS, CAPABILITY_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { createSandbox, type Sandbox, type ServeHandle, startServe } from "../../helpers/serve.js";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.js";
import { openTestStore } from "../../helpers/test-store.js";

export const CANARIES = [
  "canary-db-7f3a9c1e-do-not-leak",
  "canary-npm-5d2b8a41-do-not-leak",
  "canary-rot-9c4e1f70-do-not-leak",
];
export const TOKENS = {
  owner: "btn_owner_0123456789abcdef",
  admin: "btn_admin_0123456789abcdef",
  member: "btn_member_0123456789abcdef",
  outsider: "btn_outsider_0123456789abcd",
  legacyOwner: "btn_legacy_0123456789abcdef",
};

/** The service logs at info level, so the canary checks read a real log rather than an empty one. */
export const SERVE_LOG = { BATON_LOG_LEVEL: "info" };

export const SEED = {
  workspaces: [
    {
      id: "ws_acme",
      name: "Acme",
      rollout: { repositoryEnvironments: true },
      members: [
        { email: "owner@acme.test", role: "owner", token: TOKENS.owner },
        { email: "admin@acme.test", role: "admin", token: TOKENS.admin },
        { email: "dev@acme.test", role: "member", token: TOKENS.member },
      ],
      repositories: [
        {
          id: "repo_api",
          repository: "acme/api",
          secrets: [{ name: "DB_PASSWORD", value: CANARIES[0], allowedHosts: ["db.acme.test"] }],
        },
      ],
    },
    {
      id: "ws_other",
      name: "Other",
      rollout: { repositoryEnvironments: true },
      members: [{ email: "outsider@other.test", role: "owner", token: TOKENS.outsider }],
      repositories: [{ id: "repo_other", repository: "other/app" }],
    },
    {
      id: "ws_legacy",
      name: "Legacy",
      rollout: { repositoryEnvironments: false },
      members: [{ email: "owner@legacy.test", role: "owner", token: TOKENS.legacyOwner }],
      repositories: [{ id: "repo_legacy", repository: "legacy/app" }],
    },
  ],
};

export interface World {
  serve: ServeHandle;
  smtp: TestSmtpServer;
  sandbox: Sandbox;
  cli(args: string[], extraEnv?: Record<string, string>): ReturnType<typeof runBaton>;
  request(args: string[]): ReturnType<typeof runBaton>;
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers; each test checks the fields it needs
  member(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Rows of the service's store, read while it runs (SQLite's WAL allows it; PostgreSQL another connection). */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  outputs: string[];
  close(): Promise<void>;
}

export async function startWorld(
  options: { refuse?: string[]; args?: string[]; env?: Record<string, string> } = {},
): Promise<World> {
  const smtp = await startSmtpServer(options.refuse ?? []);
  const seedDir = await mkdtemp(join(tmpdir(), "baton-cap-seed-"));
  const dir = await mkdtemp(join(tmpdir(), "baton-cap-db-"));
  const seed = join(seedDir, "seed.json");
  await writeFile(seed, JSON.stringify(SEED));
  const serve = await startServe({
    seed,
    db: join(dir, "serve.sqlite"),
    args: ["--smtp-url", smtp.url, "--dashboard-url", "https://dash.example.test", ...(options.args ?? [])],
    env: { ...SERVE_LOG, ...options.env },
  });
  const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_1" });
  const outputs: string[] = [];
  const cli = async (args: string[], extraEnv: Record<string, string> = {}) => {
    const run = await runBaton(args, { env: { ...sandbox.env, ...extraEnv } });
    outputs.push(run.stdout, run.stderr);
    return run;
  };
  return {
    serve,
    smtp,
    sandbox,
    outputs,
    cli,
    request: (args) => cli(["env", "request-capability", "--repo", "acme/api", ...args]),
    async member(token, method, path, body) {
      const response = await fetch(`${serve.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      outputs.push(text);
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    rows: (sql) => serve.query(sql),
    async close() {
      await serve.stop();
      await smtp.close();
      await rm(dir, { recursive: true, force: true });
      await rm(seedDir, { recursive: true, force: true });
    },
  };
}

export const paths = CAPABILITY_PATHS;

/** Polls until `check` holds; bounded so a broken service fails the test instead of hanging it. */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  ms = 15_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const IN_PROCESS_ADMIN_TOKEN = "in-process-admin-token";

/** The real handler over a real SQLite file holding SEED, called without a socket. */
export interface InProcessService {
  db: Store;
  app: ServerApp;
  /** Operations headers (turn token and lease) of a new sandbox in ws_acme for `engagementId`. */
  sandboxHeaders(engagementId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export async function startInProcess(name: string): Promise<InProcessService> {
  const dir = await mkdtemp(join(tmpdir(), `baton-cap-${name}-`));
  const db = await openTestStore(dir);
  // A key for this process only: the suites read secrets back through the service, never from the store.
  const secretBox = ephemeralSecretBox();
  await applySeed(db, SeedDocumentSchema.parse(SEED), new Date(), secretBox);
  const app = createServerApp({
    db,
    logger: pino({ level: "silent" }),
    adminToken: IN_PROCESS_ADMIN_TOKEN,
    secretBox,
  });
  return {
    db,
    app,
    async sandboxHeaders(engagementId) {
      const created = await app.handle(
        new Request(`http://baton.test${ADMIN_PATHS.sandboxes}`, {
          method: "POST",
          headers: { "content-type": "application/json", [HEADERS.adminToken]: IN_PROCESS_ADMIN_TOKEN },
          body: JSON.stringify({ workspaceId: "ws_acme", engagementId }),
        }),
      );
      const creds = (await created.json()) as { turnToken: string; lease: string };
      return { [HEADERS.authorization]: `Bearer ${creds.turnToken}`, [HEADERS.sandboxLease]: creds.lease };
    },
    async close() {
      await app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
