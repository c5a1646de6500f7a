// Issue 37 A2, the admin API's half: POST /admin/v1/seed follows the rule `baton serve --seed` does. On a service
// with a listener off loopback, a seed document holding guessable member tokens is refused (409, naming the
// member, never the token) and nothing of it is applied; on a loopback-only service it is applied. In-process
// apps (no socket: app.request), each on a real store.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServerApp, ephemeralSecretBox, type ServerApp } from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { openTestStore } from "../../helpers/test-store.js";

// The admin API asks nothing of its token in-process (serve checks strength at start): any fixed value.
const ADMIN_TOKEN = "admin-token-of-this-test-0123456789abcdefghijklmnopqrstuvwxyz";
const WEAK_SEED = {
  workspaces: [
    {
      id: "ws_open",
      name: "Open",
      members: [{ email: "owner@open.test", role: "owner", token: "btn_owner-open-0000000000000000" }],
    },
  ],
};

let dir: string;
const opened: { db: Store; app: ServerApp }[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "admin-seed-strength-"));
});
afterAll(async () => {
  for (const { app, db } of opened) {
    await app.stop();
    await db.close();
  }
  await rm(dir, { recursive: true, force: true });
});

async function appWith(name: string, exposedListeners: string[]): Promise<ServerApp> {
  const db = await openTestStore(join(dir, name));
  const app = createServerApp({
    db,
    logger: pino({ level: "silent" }),
    secretBox: ephemeralSecretBox(),
    adminToken: ADMIN_TOKEN,
    exposedListeners,
    capability: { serviceUrl: "http://127.0.0.1:1" },
    tasks: { workRoot: join(dir, name, "work") },
  });
  await app.start();
  opened.push({ db, app });
  return app;
}

const postSeed = (app: ServerApp) =>
  app.listeners.admin.request(ADMIN_PATHS.seed, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADERS.adminToken]: ADMIN_TOKEN },
    body: JSON.stringify(WEAK_SEED),
  });
const me = (app: ServerApp) =>
  app.listeners.public.request("/v1/me", {
    headers: { authorization: "Bearer btn_owner-open-0000000000000000" },
  });

describe("POST /admin/v1/seed: weak member tokens only on a loopback-only service", () => {
  it("off loopback: 409 naming the member and the listener, never the token; the token does not work", async () => {
    const app = await appWith("open", ["--host 0.0.0.0"]);
    const answer = await postSeed(app);
    expect(answer.status).toBe(409);
    const text = await answer.text();
    expect(text).toContain("the token of owner@open.test in ws_open is too weak");
    expect(text).toContain("--host 0.0.0.0");
    expect(text).not.toContain("owner-open-0000");
    expect((await me(app)).status).toBe(401);
  });

  it("loopback only: applied, and the token works", async () => {
    const app = await appWith("loopback", []);
    expect((await postSeed(app)).status).toBe(200);
    expect((await me(app)).status).toBe(200);
  });
});
