// The public API in process: the real hono app over a real SQLite file with fixtures/seeds/api.json and the
// test workspaces (test/helpers/api-test-seed.ts), the real turn runtime (scripted agent, host sandboxes, local
// git code host in a temp folder), called with `app.http.request()` (no socket). Every response is checked
// against the OpenAPI document and kept, so a suite can assert no canary ever left the service. The clock is real
// time plus an offset a test can move (token expiry, rate-limit windows) without waiting.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { createLogger } from "../../../src/log.js";
import { createPersonalToken } from "../../../src/server/domain/auth/personal-tokens-store.js";
import type { TaskServiceOptions } from "../../../src/server/domain/tasks/service.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { SecretBox } from "../../../src/server/primitives/secret-box.js";
import type { Store } from "../../../src/server/store/store.js";
import { API_HEADERS } from "../../../src/server/surfaces/api/wire.js";
import { apiTestSeed } from "../../helpers/api-test-seed.js";
import { openTestStore } from "../../helpers/test-store.js";
import { checkResponse } from "./openapi-check.js";

export { API_SEED } from "../../helpers/api-test-seed.js";
export const ADMIN_TOKEN = "test-admin-token-0123456789";
export const TOKENS = {
  owner: "btn_owner-acme-0000000000000000",
  dev: "btn_dev-acme-00000000000000000000",
  nolink: "btn_nolink-acme-0000000000000000",
  unbound: "btn_unbound-acme-000000000000000",
  stranger: "btn_stranger-other-00000000000000",
} as const;
/** Values that must never leave the service: the seed's secret and every token (tokens are shown only once). */
export const CANARIES = ["canary-api-db-6e2f91c4-never-print", ...Object.values(TOKENS)];

export interface Seen {
  method: string;
  path: string;
  status: number;
  text: string;
  headers: Headers;
}

export interface ApiHarness {
  app: ServerApp;
  db: Store;
  /** The key sealing secret values in this harness's store. */
  secretBox: SecretBox;
  dir: string;
  clock: { offsetMs: number };
  seen: Seen[];
  call(
    method: string,
    path: string,
    init?: { token?: string | null; headers?: Record<string, string>; body?: unknown },
    // biome-ignore lint/suspicious/noExplicitAny: each test knows the shape the OpenAPI check has just validated
  ): Promise<{ status: number; body: any; headers: Headers }>;
  close(): Promise<void>;
}

export async function createApiHarness(
  options: { seed?: unknown; tasks?: Partial<TaskServiceOptions> } = {},
): Promise<ApiHarness> {
  const dir = await mkdtemp(join(tmpdir(), "tasks-api-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(db, SeedDocumentSchema.parse(options.seed ?? apiTestSeed()), new Date(), secretBox);
  const clock = { offsetMs: 0 };
  const app = createServerApp({
    db,
    logger: createLogger({}),
    adminToken: ADMIN_TOKEN,
    secretBox,
    now: () => new Date(Date.now() + clock.offsetMs),
    capability: { serviceUrl: "http://127.0.0.1:9" },
    tasks: { workRoot: join(dir, "work"), pullRequestSweepMs: 100, ...options.tasks },
  });
  await app.start();
  const seen: Seen[] = [];
  const harness: ApiHarness = {
    app,
    db,
    secretBox,
    dir,
    clock,
    seen,
    async call(method, path, init = {}) {
      const token = init.token === undefined ? TOKENS.dev : init.token;
      const headers: Record<string, string> = { ...init.headers };
      if (token !== null) headers[API_HEADERS.authorization] = `Bearer ${token}`;
      if (init.body !== undefined) headers["content-type"] ??= "application/json";
      const response = await app.http.request(path, {
        method,
        headers,
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
      });
      const text = await response.text();
      seen.push({ method, path, status: response.status, text, headers: response.headers });
      expect(
        checkResponse(method, path, response.status, (name) => response.headers.get(name), text),
        `${method} ${path}`,
      ).toEqual([]);
      return {
        status: response.status,
        body: text === "" ? undefined : JSON.parse(text),
        headers: response.headers,
      };
    },
    async close() {
      await app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** Polls until `check` holds or the deadline passes (never a count of tries). */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let tokenCount = 0;
/** A new personal access token for a seeded member: each test gets its own rate-limit budget. */
export async function freshToken(h: ApiHarness, email = "dev@acme.test"): Promise<string> {
  return (
    await createPersonalToken(h.db, { email, name: `test-${++tokenCount}`, lifetimeDays: 30 }, new Date())
  ).token;
}

/** Waits until the task's status is one of `statuses` (read from the store: the wait is not what is tested). */
export function waitForStatus(h: ApiHarness, taskId: string, statuses: string[]): Promise<string> {
  return until(
    async () => {
      const row = (await h.db.get("SELECT status FROM tasks WHERE id = ?", [taskId])) as
        | { status: string }
        | undefined;
      return row && statuses.includes(row.status) ? row.status : undefined;
    },
    `task ${taskId} to reach ${statuses.join(" or ")}`,
  );
}
