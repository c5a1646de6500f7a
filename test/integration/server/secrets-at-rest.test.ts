// DESIGN "Secret values at rest": AES-256-GCM with an operator key file created at first start (0600); the store
// keeps ciphertext only; migration 0040 seals the values an older store kept in plaintext.
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  applySeed,
  isSealed,
  loadOrCreateSecretKey,
  MIGRATIONS,
  SeedDocumentSchema,
  secretScope,
} from "../../../src/server/index.js";
import { migrateDatabase } from "../../../src/server/store/migrate.js";
import { loadSqlite } from "../../../src/server/store/sqlite.js";
import { openSqliteStore } from "../../helpers/sqlite-store.js";
import { CANARIES, SEED_PATH } from "./harness.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "proxy-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const seed = () => SeedDocumentSchema.parse(JSON.parse(readFileSync(SEED_PATH, "utf8")));

describe("the key file", () => {
  it("is created at first start with mode 0600 and read back unchanged afterwards", async () => {
    const file = join(dir, "keys", "secret.key");
    const first = await loadOrCreateSecretKey(file);
    expect(first.created).toBe(true);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const text = await readFile(file, "utf8");
    const second = await loadOrCreateSecretKey(file);
    expect(second.created).toBe(false);
    expect(await readFile(file, "utf8")).toBe(text);
    // Same key: what one sealed the other opens.
    expect(second.box.open("sec_x", first.box.seal("sec_x", CANARIES[0]))).toBe(CANARIES[0]);
  });

  it("a key file others can read stops the start, naming the chmod that fixes it", async () => {
    const file = join(dir, "secret.key");
    await loadOrCreateSecretKey(file);
    await chmod(file, 0o644);
    await expect(loadOrCreateSecretKey(file)).rejects.toThrow(`chmod 600 ${file}`);
  });

  it("a sealed value does not open for another secret or under another key", async () => {
    const a = await loadOrCreateSecretKey(join(dir, "a.key"));
    const b = await loadOrCreateSecretKey(join(dir, "b.key"));
    const sealed = a.box.seal(secretScope("repo_1", "TOKEN"), CANARIES[0]);
    expect(() => a.box.open(secretScope("repo_2", "TOKEN"), sealed)).toThrow(/does not open/);
    expect(() => b.box.open(secretScope("repo_1", "TOKEN"), sealed)).toThrow(/does not open/);
  });
});

describe("the store", () => {
  it("keeps ciphertext only: the seed's values appear nowhere in the SQLite file or its WAL", async () => {
    const { box } = await loadOrCreateSecretKey(join(dir, "secret.key"));
    const path = join(dir, "s.sqlite");
    const db = await openSqliteStore(path, { secretBox: box });
    await applySeed(db, seed(), new Date(), box);
    const rows = (await db.all("SELECT repository_id, name, value_sealed FROM secrets")) as {
      repository_id: string;
      name: string;
      value_sealed: string;
    }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => isSealed(r.value_sealed))).toBe(true);
    expect(rows.map((r) => box.open(secretScope(r.repository_id, r.name), r.value_sealed)).sort()).toEqual(
      [...CANARIES].sort(),
    );
    const bytes = Buffer.concat([await readFile(path), await readFile(`${path}-wal`)]).toString("latin1");
    await db.close();
    for (const canary of CANARIES) expect(bytes).not.toContain(canary);
  });

  it("migration 0040 seals the plaintext values of an older store, and refuses without a key", async () => {
    const { DatabaseSync } = await loadSqlite();
    const path = join(dir, "old.sqlite");
    const old = new DatabaseSync(path);
    await migrateDatabase(
      old,
      MIGRATIONS.filter((m) => m.version < 40),
    );
    old.exec(`INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', 'now');
      INSERT INTO repositories (id, workspace_id, slug) VALUES ('r', 'w', 'acme/api');
      INSERT INTO secrets (id, repository_id, name, value, allowed_hosts_json, updated_at)
        VALUES ('sec_old', 'r', 'TOKEN', '${CANARIES[1]}', '["api.acme.test"]', 'now')`);
    old.close();

    await expect(openSqliteStore(path)).rejects.toThrow(/--secret-key-file/);
    const { box } = await loadOrCreateSecretKey(join(dir, "secret.key"));
    const db = await openSqliteStore(path, { secretBox: box });
    const row = (await db.get("SELECT value_sealed FROM secrets WHERE id = 'sec_old'")) as {
      value_sealed: string;
    };
    await db.close();
    expect(isSealed(row.value_sealed)).toBe(true);
    expect(box.open(secretScope("r", "TOKEN"), row.value_sealed)).toBe(CANARIES[1]);
  });
});
