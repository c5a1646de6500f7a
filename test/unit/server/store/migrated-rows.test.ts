// Rows written through the same SQL into the migrated schema read back the same on both engines, and the
// migrations that move data (60: a user per known e-mail; 40: sealing plaintext secret values) do it on both.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ephemeralSecretBox, isSealed, secretScope } from "../../../../src/server/primitives/secret-box.js";
import { migrateStore } from "../../../../src/server/store/migrate.js";
import { MIGRATIONS } from "../../../../src/server/store/migrations/index.js";
import type { Store } from "../../../../src/server/store/store.js";
import { ENGINES } from "../../../helpers/postgres.js";

const SECRET_CANARY = "secret-canary-0c4e91d2";
const LATE_MS = Date.UTC(2100, 0, 1, 0, 0, 0, 123); // past 2^31 and 2^32: an int4 column would overflow
const NOW = "2026-01-01T00:00:00.000Z";

const migrationsBefore = (version: number) => MIGRATIONS.filter((m) => m.version < version);

async function seedSandbox(store: Store): Promise<void> {
  await store.run("INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', ?)", [NOW]);
  await store.run("INSERT INTO repositories (id, workspace_id, slug) VALUES ('r', 'w', 'acme/api')");
  await store.run("INSERT INTO engagements (id, workspace_id, created_at) VALUES ('e', 'w', ?)", [NOW]);
  await store.run(
    "INSERT INTO sandboxes (id, engagement_id, lease_hash, lease_expires_at_ms, created_at) VALUES ('s', 'e', 'h', ?, ?)",
    [LATE_MS, NOW],
  );
  await store.run(
    "INSERT INTO turns (id, engagement_id, token_hash, expires_at_ms, created_at) VALUES ('t', 'e', 'th', ?, ?)",
    [LATE_MS, NOW],
  );
}

describe.each(ENGINES)("the migrated schema on the $name engine", (engine) => {
  let store: Store;
  let tearDown: () => Promise<void>;

  beforeEach(async () => {
    ({ store, tearDown } = await engine.setUp());
  });
  afterEach(() => tearDown());

  it("keeps millisecond instants past 2^31 exactly (sandbox_boxes)", async () => {
    await migrateStore(store);
    await seedSandbox(store);
    await store.run(
      `INSERT INTO sandbox_boxes (sandbox_id, workspace_id, engagement_id, driver, image, state,
         last_activity_at_ms, state_changed_at_ms, created_at_ms) VALUES ('s', 'w', 'e', 'docker', 'img', 'running', ?, ?, ?)`,
      [LATE_MS, LATE_MS + 1, 2 ** 53 - 1],
    );
    expect(await store.get("SELECT * FROM sandbox_boxes")).toEqual({
      sandbox_id: "s",
      workspace_id: "w",
      engagement_id: "e",
      driver: "docker",
      box_ref: null,
      image: "img",
      repository: null,
      state: "running",
      last_activity_at_ms: LATE_MS,
      state_changed_at_ms: LATE_MS + 1,
      created_at_ms: 2 ** 53 - 1,
      reach_json: "{}",
      batonrc_json: null,
      pre_clone_json: "[]",
      owner_instance: null,
      owner_machine: null,
      owner_lease_until_ms: null,
    });
    expect(await store.get("SELECT lease_expires_at_ms FROM sandboxes")).toEqual({
      lease_expires_at_ms: LATE_MS,
    });
  });

  it("numbers operations 1, 2, … when seq is left out (AUTOINCREMENT / identity)", async () => {
    await migrateStore(store);
    await seedSandbox(store);
    for (const id of ["op_a", "op_b"]) {
      await store.run(
        `INSERT INTO operations (id, kind, workspace_id, engagement_id, sandbox_id, turn_id, repository_id, repository,
           state, created_at, updated_at) VALUES (?, 'activate', 'w', 'e', 's', 't', 'r', 'acme/api', 'pending', ?, ?)`,
        [id, NOW, NOW],
      );
    }
    expect(
      await store.all("SELECT seq, id, attempts, overlay_revision FROM operations ORDER BY seq"),
    ).toEqual([
      { seq: 1, id: "op_a", attempts: 0, overlay_revision: null },
      { seq: 2, id: "op_b", attempts: 0, overlay_revision: null },
    ]);
  });

  it("stores a sealed secret value as written and opens it back", async () => {
    await migrateStore(store);
    await seedSandbox(store);
    const box = ephemeralSecretBox();
    const sealed = box.seal(secretScope("r", "TOKEN"), SECRET_CANARY);
    await store.run(
      `INSERT INTO secrets (id, repository_id, name, value_sealed, allowed_hosts_json, updated_at)
       VALUES ('sec', 'r', 'TOKEN', ?, '["api.acme.test"]', ?)`,
      [sealed, NOW],
    );
    const row = await store.get<{ value_sealed: string }>(
      "SELECT value_sealed FROM secrets WHERE id = 'sec'",
    );
    expect(row).toEqual({ value_sealed: sealed });
    expect(box.open(secretScope("r", "TOKEN"), row!.value_sealed)).toBe(SECRET_CANARY);
  });

  it("migration 60 gives each e-mail already known one user (usr_ + 24 hex), members and tokens alike", async () => {
    await migrateStore(store, migrationsBefore(60));
    await store.run("INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', ?)", [NOW]);
    await store.run("INSERT INTO members (workspace_id, email, role) VALUES ('w', 'a@x.test', 'owner')");
    await store.run(
      "INSERT INTO personal_access_tokens (token_hash, email, name, expires_at_ms, created_at) VALUES (?, 'a@x.test', 'n', ?, ?), (?, 'b@x.test', 'n', ?, ?)",
      ["0123456789abcdef0123456789abcdef", LATE_MS, NOW, "fedcba9876543210fedcba9876543210", LATE_MS, NOW],
    );
    await migrateStore(store);
    const users = await store.all<{ id: string; email: string; name: string }>(
      "SELECT id, email, name FROM users ORDER BY email",
    );
    expect(users.map((u) => [u.email, u.name])).toEqual([
      ["a@x.test", "a@x.test"],
      ["b@x.test", "b@x.test"],
    ]);
    for (const user of users) expect(user.id).toMatch(/^usr_[0-9a-f]{24}$/);
    expect(await store.all("SELECT id, last_four FROM personal_access_tokens ORDER BY id")).toEqual([
      { id: "pat_0123456789abcdef01234567", last_four: "" },
      { id: "pat_fedcba9876543210fedcba98", last_four: "" },
    ]);
  });

  it("migration 40 seals plaintext secret values, and without a key refuses and changes nothing", async () => {
    await migrateStore(store, migrationsBefore(40));
    await seedSandbox(store);
    await store.run(
      `INSERT INTO secrets (id, repository_id, name, value, allowed_hosts_json, updated_at)
       VALUES ('sec', 'r', 'TOKEN', ?, '[]', ?)`,
      [SECRET_CANARY, NOW],
    );
    await expect(migrateStore(store)).rejects.toThrow(/1 secret value\(s\) need sealing.*--secret-key-file/);
    expect(await store.get("SELECT value FROM secrets")).toEqual({ value: SECRET_CANARY });
    expect(await store.get("SELECT 1 AS found FROM schema_migrations WHERE version = 40")).toBeUndefined();

    const box = ephemeralSecretBox();
    expect(await migrateStore(store, MIGRATIONS, new Date(), { secretBox: box })).toContain(40);
    const row = await store.get<{ value_sealed: string }>("SELECT value_sealed FROM secrets");
    expect(isSealed(row!.value_sealed)).toBe(true);
    expect(row!.value_sealed).not.toContain(SECRET_CANARY);
    expect(box.open(secretScope("r", "TOKEN"), row!.value_sealed)).toBe(SECRET_CANARY);
  });
});
