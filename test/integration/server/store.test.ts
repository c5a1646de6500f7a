// The SQLite store on a real file: migrations, WAL, hashed credentials, seeding, the admin API's guard.
import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import {
  applySeed,
  createServerApp,
  ephemeralSecretBox,
  MIGRATIONS,
  openDatabase,
  SeedDocumentSchema,
} from "../../../src/server/index.js";
import { migrateDatabase } from "../../../src/server/store/migrate.js";
import type { MigrationRun } from "../../../src/server/store/migrations/index.js";
import type { Database } from "../../../src/server/store/sqlite.js";
import type { SqliteStore } from "../../../src/server/store/sqlite-store.js";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { openSqliteStore } from "../../helpers/sqlite-store.js";
import { ADMIN_TOKEN, CANARIES, createHarness, type Harness, SEED_PATH } from "./harness.js";

let dir: string;
let db: Database | undefined;
let opened: SqliteStore | undefined;
let harness: Harness | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-store-"));
});
afterEach(async () => {
  db?.close();
  db = undefined;
  await opened?.close();
  opened = undefined;
  await harness?.close();
  harness = undefined;
  await rm(dir, { recursive: true, force: true });
});

const box = ephemeralSecretBox();
// The domain (the seed, the app) speaks to the store over the file; the migration tests above read the file itself.
const openStore = async () => {
  opened = await openSqliteStore(join(dir, "s.sqlite"));
  return opened;
};
const seed = () => SeedDocumentSchema.parse(JSON.parse(readFileSync(SEED_PATH, "utf8")));

describe("store", () => {
  it("opens in WAL mode and records every migration version once, also on a second open", async () => {
    const path = join(dir, "s.sqlite");
    db = await openDatabase(path);
    expect(db.prepare("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    // It holds secret values: only its owner may read it or its WAL.
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(`${path}-wal`)).mode & 0o777).toBe(0o600);
    const versions = () =>
      (
        db!.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]
      ).map((r) => r.version);
    expect(versions()).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
    db.close();
    db = await openDatabase(path);
    expect(versions()).toEqual(MIGRATIONS.map((m) => m.version).sort((a, b) => a - b));
  });

  it("an appended migration runs once, after the ones already applied; a failing one leaves no trace", async () => {
    db = await openDatabase(join(dir, "s.sqlite"));
    const extra = {
      version: 9999,
      name: "test-extra",
      up: (m: MigrationRun) => m.exec("CREATE TABLE extra (x INTEGER)"),
    };
    expect(await migrateDatabase(db, [...MIGRATIONS, extra])).toEqual([9999]);
    expect(await migrateDatabase(db, [...MIGRATIONS, extra])).toEqual([]);
    const broken = {
      version: 10000,
      name: "broken",
      up: (m: MigrationRun) => m.exec("CREATE TABLE broken (x); SELECT * FROM nowhere"),
    };
    await expect(migrateDatabase(db, [...MIGRATIONS, extra, broken])).rejects.toThrow(/nowhere/);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'broken'").get()).toBeUndefined();
    expect(db.prepare("SELECT 1 FROM schema_migrations WHERE version = 10000").get()).toBeUndefined();
  });

  it("keeps sha256 hashes of turn tokens and leases, never the credentials", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-1");
    const dump = JSON.stringify([
      await harness.db.all("SELECT * FROM turns"),
      await harness.db.all("SELECT * FROM sandboxes"),
    ]);
    expect(dump).not.toContain(creds.turnToken);
    expect(dump).not.toContain(creds.lease);
    expect(dump).toMatch(/[0-9a-f]{64}/);
  });
});

describe("seed", () => {
  it("re-applying the same seed changes nothing and keeps each secret's id (so its placeholder)", async () => {
    const store = await openStore();
    await applySeed(store, seed(), new Date(), box);
    const secrets = () => store.all("SELECT id, name, value_sealed, updated_at FROM secrets ORDER BY name");
    const before = await secrets();
    await applySeed(store, seed(), new Date(), box);
    expect(await secrets()).toEqual(before);
    expect(((await store.get("SELECT COUNT(*) AS n FROM repositories")) as { n: number }).n).toBe(3);
  });

  it("a new environment versionId becomes the repository's current version", async () => {
    const store = await openStore();
    await applySeed(store, seed(), new Date(), box);
    const next = seed();
    next.workspaces[0]!.repositories[0]!.environment!.versionId = "env-api-2";
    await applySeed(store, next, new Date(), box);
    expect(await store.get("SELECT current_version_id FROM repositories WHERE id = 'repo_api'")).toEqual({
      current_version_id: "env-api-2",
    });
  });

  const doc = (members: unknown[], repository: Record<string, unknown>) =>
    SeedDocumentSchema.parse({
      workspaces: [
        {
          id: "ws_x",
          name: "X",
          rollout: { repositoryEnvironments: true },
          members,
          repositories: [{ id: "repo_x", repository: "x/app", ...repository }],
        },
      ],
    });
  const owner = { email: "owner@x.test", role: "owner", token: "btn_seed-owner-token-0123456789" };
  const dev = { email: "dev@x.test", role: "member", token: "btn_seed-dev-token-0123456789ab" };

  it("a member and token the seed set and dropped are removed; a role changed since is kept", async () => {
    const store = await openStore();
    await applySeed(store, doc([owner, dev, { email: "ops@x.test", role: "admin" }], {}), new Date(), box);
    expect(await store.get("SELECT COUNT(*) AS n FROM personal_access_tokens")).toEqual({ n: 2 });
    // Something other than the seed changes ops@x.test's role.
    await store.run("UPDATE members SET role = 'member' WHERE email = 'ops@x.test'");
    const { kept } = await applySeed(store, doc([owner], {}), new Date(), box);
    expect(await store.all("SELECT email, role FROM members ORDER BY email")).toEqual([
      { email: "ops@x.test", role: "member" },
      { email: "owner@x.test", role: "owner" },
    ]);
    expect(await store.all("SELECT email FROM personal_access_tokens")).toEqual([{ email: "owner@x.test" }]);
    expect(kept).toEqual(["member ops@x.test of ws_x"]);
  });

  it("keeps only fingerprints of secret values in its ledger, never the values", async () => {
    const store = await openStore();
    const value = "canary-ledger-7d6c5b4a-never-print";
    await applySeed(
      store,
      doc([], { secrets: [{ name: "K", value, allowedHosts: ["k.test"] }] }),
      new Date(),
      box,
    );
    const ledger = JSON.stringify(await store.all("SELECT * FROM seed_items"));
    expect(ledger).toContain("scrypt1$");
    expect(ledger).not.toContain(value);
    expect(ledger).not.toContain(owner.token);
  });

  it("a store seeded before the ledger existed loses nothing at its first application", async () => {
    const store = await openStore();
    const secret = { name: "K", value: "v-one", allowedHosts: ["k.test"] };
    await applySeed(store, doc([owner], { sandboxEnv: { MODE: "a" }, secrets: [secret] }), new Date(), box);
    await store.run("DELETE FROM seed_items"); // as an older version left it
    await applySeed(store, doc([], {}), new Date(), box);
    expect(await store.all("SELECT name FROM secrets")).toEqual([{ name: "K" }]);
    expect(await store.all("SELECT name FROM sandbox_env")).toEqual([{ name: "MODE" }]);
    expect(await store.all("SELECT email FROM members")).toEqual([{ email: "owner@x.test" }]);
  });

  it("a seed listing only some workspaces leaves the others as they are", async () => {
    const store = await openStore();
    await applySeed(store, seed(), new Date(), box);
    const before = await store.all("SELECT * FROM secrets ORDER BY id");
    await applySeed(
      store,
      SeedDocumentSchema.parse({ workspaces: [{ id: "ws_other", name: "Other" }] }),
      new Date(),
      box,
    );
    expect(await store.all("SELECT * FROM secrets ORDER BY id")).toEqual(before);
    expect(((await store.get("SELECT COUNT(*) AS n FROM members")) as { n: number }).n).toBe(3);
  });

  it("a sandboxEnv name that is also a secret owners added is refused, naming both", async () => {
    const store = await openStore();
    await applySeed(store, doc([], {}), new Date(), box);
    await store.run(
      "INSERT INTO secrets (id, repository_id, name, value_sealed, allowed_hosts_json, updated_at) VALUES ('sec_1', 'repo_x', 'TOKEN', 'v', '[]', '')",
    );
    await expect(
      applySeed(store, doc([], { sandboxEnv: { TOKEN: "plain" } }), new Date(), box),
    ).rejects.toThrow(/x\/app: TOKEN is a sandboxEnv entry of the seed and also a secret/);
    expect(await store.all("SELECT name FROM sandbox_env")).toEqual([]);
  });

  it("refuses an engagement id that belongs to another workspace", async () => {
    const store = await openStore();
    await applySeed(
      store,
      SeedDocumentSchema.parse({ workspaces: [{ id: "a", name: "A", engagements: [{ id: "e" }] }] }),
      new Date(),
      box,
    );
    await expect(
      applySeed(
        store,
        SeedDocumentSchema.parse({ workspaces: [{ id: "b", name: "B", engagements: [{ id: "e" }] }] }),
        new Date(),
        box,
      ),
    ).rejects.toThrow(/another workspace/);
  });
});

describe("admin API guard", () => {
  it("a wrong or missing admin token is 401; the seed route then changes nothing", async () => {
    harness = await createHarness();
    for (const headers of [{}, { [HEADERS.adminToken]: "wrong" }] as Record<string, string>[]) {
      const response = await harness.request("POST", ADMIN_PATHS.seed, {
        headers,
        body: { workspaces: [{ id: "x", name: "X" }] },
      });
      expect(response.status).toBe(401);
    }
    expect(await harness.db.get("SELECT 1 FROM workspaces WHERE id = 'x'")).toBeUndefined();
  });

  it("without an admin token configured the admin API does not exist (404)", async () => {
    const app = createServerApp({ db: await openStore(), logger: createLogger({}), secretBox: box });
    const response = await app.handle(
      new Request(`http://127.0.0.1${ADMIN_PATHS.seed}`, {
        method: "POST",
        headers: { [HEADERS.adminToken]: ADMIN_TOKEN },
        body: "{}",
      }),
    );
    expect(response.status).toBe(404);
    await app.stop();
  });

  it("a refused seed names the field, never the secret value next to it", async () => {
    harness = await createHarness();
    const response = await harness.admin(ADMIN_PATHS.seed, {
      workspaces: [
        {
          id: "ws_acme",
          name: "Acme",
          repositories: [
            {
              repository: "acme/api",
              secrets: [{ name: "X", value: CANARIES[0], allowedHosts: ["UPPER.case"] }],
            },
          ],
        },
      ],
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain("allowedHosts[0]");
    expect(text).not.toContain(CANARIES[0]);
  });
});
