// In-process harness: the real handler over a real SQLite file in a temp dir, called without a socket (the
// hono model). The clock is the real one plus an offset a test can move, so expiry can be reached without
// waiting hours.

import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../../src/log.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { ADMIN_PATHS, HEADERS, type Operation, PATHS } from "../../../src/transport/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import { openTestStore } from "../../helpers/test-store.js";

export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const SEED_PATH = join(PROJECT_ROOT, "fixtures", "server", "seed.json");
export const CANARIES = ["canary-db-7f3a9c1e-do-not-leak", "canary-stripe-2b8e4d6f-do-not-leak"] as const;

export interface Credentials {
  sandboxId: string;
  engagementId: string;
  lease: string;
  turnToken: string;
}

export interface Harness {
  app: ServerApp;
  db: Store;
  dir: string;
  clock: { offsetMs: number };
  responses: string[];
  request(
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: unknown },
  ): Promise<Response>;
  admin(path: string, body: unknown): Promise<Response>;
  sandbox(
    workspaceId: string,
    engagementId: string,
    ttl?: { lease?: number; turn?: number },
  ): Promise<Credentials>;
  start(creds: Credentials, repository: string, key?: string): Promise<Response>;
  get(creds: Credentials, id: string, waitMs?: number): Promise<Response>;
  settle(creds: Credentials, id: string): Promise<Operation>;
  close(): Promise<void>;
}

export const opsHeaders = (creds: Pick<Credentials, "lease" | "turnToken">) => ({
  [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
  [HEADERS.sandboxLease]: creds.lease,
});

let keyCounter = 0;

export const PROXY_TOKEN = "test-proxy-token-abcdef0123456789";

export async function createHarness(
  options: { activationDelayMs?: number; proxyToken?: string } = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), "baton-server-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(SEED_PATH, "utf8"))),
    new Date(),
    secretBox,
  );
  const clock = { offsetMs: 0 };
  const app = createServerApp({
    db,
    logger: createLogger({}),
    adminToken: ADMIN_TOKEN,
    secretBox,
    proxyToken: options.proxyToken,
    now: () => new Date(Date.now() + clock.offsetMs),
    ...(options.activationDelayMs ? { activationDelayMs: options.activationDelayMs } : {}),
  });
  await app.start();
  const responses: string[] = [];
  const request: Harness["request"] = async (method, path, init = {}) => {
    const response = await app.http.request(path, {
      method,
      headers: { "content-type": "application/json", ...init.headers },
      ...(init.body === undefined
        ? {}
        : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
    });
    // Every body a test sees is kept so a test can assert no canary secret ever left the service.
    responses.push(await response.clone().text());
    return response;
  };
  const harness: Harness = {
    app,
    db,
    dir,
    clock,
    responses,
    request,
    admin: (path, body) => request("POST", path, { headers: { [HEADERS.adminToken]: ADMIN_TOKEN }, body }),
    async sandbox(workspaceId, engagementId, ttl = {}) {
      const response = await harness.admin(ADMIN_PATHS.sandboxes, {
        workspaceId,
        engagementId,
        ...(ttl.lease ? { leaseTtlSeconds: ttl.lease } : {}),
        ...(ttl.turn ? { turnTtlSeconds: ttl.turn } : {}),
      });
      if (response.status !== 201) throw new Error(`sandbox: ${response.status} ${await response.text()}`);
      return (await response.json()) as Credentials;
    },
    start: (creds, repository, key = `key-${++keyCounter}`) =>
      request("POST", PATHS.operations, {
        headers: { ...opsHeaders(creds), [HEADERS.idempotencyKey]: key },
        body: { kind: "env.activate", repository },
      }),
    get: (creds, id, waitMs) =>
      request("GET", `${PATHS.operation(id)}${waitMs === undefined ? "" : `?waitMs=${waitMs}`}`, {
        headers: opsHeaders(creds),
      }),
    async settle(creds, id) {
      const finished = (op: Operation) => op.state === "succeeded" || op.state === "failed";
      const op = await pollUntil(
        async () => (await (await harness.get(creds, id, 5000)).json()) as Operation,
        finished,
        { timeoutMs: 120_000, intervalMs: 0 },
      );
      if (!finished(op)) throw new Error(`operation ${id} did not finish`);
      return op;
    },
    async close() {
      await app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
