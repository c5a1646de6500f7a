// The tokens page in process: the real public listener over a real SQLite file seeded as the API harness is,
// a signed-in browser played by a session cookie from startWebSession, and every answer and log line kept so a
// test can count where a token's value appeared. Forms are posted as a browser posts them (urlencoded).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { findUserByEmail, type User } from "../../../src/server/domain/auth/users.js";
import type { TaskServiceOptions } from "../../../src/server/domain/tasks/service.js";
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
import { CSRF_FIELD } from "../../../src/server/surfaces/pages/wire.js";
import { apiTestSeed } from "../../helpers/api-test-seed.js";
import { openTestStore } from "../../helpers/test-store.js";

export interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

export interface PagesHarness {
  app: ServerApp;
  db: Store;
  /** Every answer any request of the harness received, in order (canary checks). */
  seen: Answer[];
  /** Every line the service logged, at debug level. */
  logs: string[];
  user(email: string): Promise<User>;
  /** A new web session for the user: the Cookie header value. */
  signIn(email: string): Promise<string>;
  /** A request to the public listener, optionally as a signed-in browser posting a form. */
  page(
    method: "GET" | "POST",
    path: string,
    init?: { cookie?: string; form?: Record<string, string>; headers?: Record<string, string> },
  ): Promise<Answer>;
  /** GET /v1/me with the bearer token: 200 while the token acts, 401 once revoked. */
  me(token: string): Promise<Answer>;
  close(): Promise<void>;
}

/** `tasks`: the task engine's settings (a test's agents, the agents a workspace may choose). */
export async function createPagesHarness(
  options: { tasks?: Partial<TaskServiceOptions> } = {},
): Promise<PagesHarness> {
  const dir = await mkdtemp(join(tmpdir(), "tokens-page-"));
  const db = await openTestStore(dir);
  const secretBox = ephemeralSecretBox();
  await applySeed(db, SeedDocumentSchema.parse(apiTestSeed()), new Date(), secretBox);
  const logs: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(line) });
  const app = createServerApp({
    db,
    logger,
    secretBox,
    tasks: { workRoot: join(dir, "work"), ...options.tasks },
  });
  await app.start();
  const seen: Answer[] = [];
  const keep = async (response: Response): Promise<Answer> => {
    const answer = { status: response.status, text: await response.text(), headers: response.headers };
    seen.push(answer);
    return answer;
  };
  const user = async (email: string) => {
    const found = await findUserByEmail(db, email);
    if (!found) throw new Error(`no seeded user ${email}`);
    return found;
  };
  return {
    app,
    db,
    seen,
    logs,
    user,
    signIn: async (email) => (await startWebSession(app.deps, (await user(email)).id, false)).cookie,
    async page(method, path, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      if (init.cookie) headers.cookie = init.cookie;
      if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
      return keep(
        await app.listeners.public.request(path, {
          method,
          headers,
          redirect: "manual",
          ...(init.form ? { body: new URLSearchParams(init.form).toString() } : {}),
        }),
      );
    },
    async me(token) {
      return keep(
        await app.listeners.public.request(API_PATHS.me, { headers: { authorization: `Bearer ${token}` } }),
      );
    },
    async close() {
      await app.stop();
      await db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The value of the hidden or text input `name` in a page (the first one). */
export function inputValue(html: string, name: string): string {
  const match = new RegExp(`name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!match) throw new Error(`no input ${name} in the page`);
  return match[1]!;
}

export const csrfOf = (html: string) => inputValue(html, CSRF_FIELD);

/** The token shown once on the creation page, or undefined when the page shows none. */
export function shownToken(html: string): string | undefined {
  return /id="created-token"[^>]*>(btn_[^<]+)<\/textarea>/.exec(html)?.[1];
}
