// "Legacy labels stored earlier are normalised on read": a row written by an older version with a legacy kind
// label reads back in the fixed vocabulary and is found by the exact-target comparison. In-process handler,
// real SQLite file.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applySeed,
  createServerApp,
  openDatabase,
  SeedDocumentSchema,
  type ServerApp,
} from "../../../src/server/index.js";
import type { Database } from "../../../src/server/store/sqlite.js";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { paths, SEED, TOKENS } from "./harness.js";

let dir: string;
let db: Database;
let app: ServerApp;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-cap-legacy-"));
  db = await openDatabase(join(dir, "serve.sqlite"));
  applySeed(db, SeedDocumentSchema.parse(SEED), new Date());
  app = createServerApp({ db, logger: pino({ level: "silent" }), adminToken: "legacy-admin-token" });
  const at = new Date().toISOString();
  // What an older worker stored: a legacy label as the kind.
  db.prepare(
    `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason, status, created_at, updated_at)
     VALUES ('cr_legacy', 'ws_acme', 'repo_api', 'acme/api', 'api-key', 'api.stripe.com', 'host', 'old request', 'open', ?, ?)`,
  ).run(at, at);
});
afterAll(async () => {
  await app?.stop();
  db?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("legacy capability labels", () => {
  it("a stored legacy label reads back as a kind, and the same access asked for again matches it by target", async () => {
    const list = await app.handle(
      new Request(`http://baton.test${paths.list("ws_acme", "repo_api")}`, {
        headers: { [HEADERS.authorization]: `Bearer ${TOKENS.member}` },
      }),
    );
    const body = (await list.json()) as { requests: { requestId: string; kind: string }[] };
    expect(body.requests).toEqual([expect.objectContaining({ requestId: "cr_legacy", kind: "api_key" })]);

    const created = await app.handle(
      new Request(`http://baton.test${ADMIN_PATHS.sandboxes}`, {
        method: "POST",
        headers: { "content-type": "application/json", [HEADERS.adminToken]: "legacy-admin-token" },
        body: JSON.stringify({ workspaceId: "ws_acme", engagementId: "eng_legacy_labels" }),
      }),
    );
    const creds = (await created.json()) as { turnToken: string; lease: string };
    const again = await app.handle(
      new Request(`http://baton.test${paths.requests}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
          [HEADERS.sandboxLease]: creds.lease,
        },
        body: JSON.stringify({
          repository: "acme/api",
          capability: "apikey",
          target: "https://API.stripe.com/v1",
          reason: "payments",
        }),
      }),
    );
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      matched: true,
      matchedBy: "target",
      request: { requestId: "cr_legacy", kind: "api_key" },
    });
  });
});
