// Per-version runPath and evidencePath through the real handler and a real SQLite file: seeded values reach the
// activation result, absent ones keep the built-in defaults, unsafe ones are refused at seed time, and an unsafe
// value already in the store (written before validation, or by hand) gives `delivery_failed`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCurrentVersion } from "../../../src/server/domain/operations/engagement-state.js";
import { MIGRATIONS } from "../../../src/server/index.js";
import { migrateDatabase } from "../../../src/server/store/migrate.js";
import { type Database, loadSqlite } from "../../../src/server/store/sqlite.js";
import { SqliteStore } from "../../../src/server/store/sqlite-store.js";
import { ADMIN_PATHS, ManagedStartupSchema } from "../../../src/transport/wire.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
let db: Database | undefined;
let dir: string | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  db?.close();
  db = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const CUSTOM = {
  runPath: "~/.baton/tools/runner-v2.cjs",
  evidencePath: "~/.baton/evidence/tools/latest.json",
};

/** Seeds acme/tools in the fixture's workspace with one environment version. */
const seedTools = (h: Harness, environment: Record<string, unknown>) =>
  h.admin(ADMIN_PATHS.seed, {
    workspaces: [
      {
        id: "ws_acme",
        name: "Acme",
        rollout: { repositoryEnvironments: true },
        repositories: [
          {
            id: "repo_tools",
            repository: "acme/tools",
            sandboxEnv: { TOOLS_MODE: "ci" },
            environment: { startupScriptPath: "scripts/start.sh", ...environment },
          },
        ],
      },
    ],
  });

async function activateTools(h: Harness, engagementId: string) {
  const creds = await h.sandbox("ws_acme", engagementId);
  const response = await h.start(creds, "acme/tools");
  expect(response.status).toBe(202);
  const done = await h.settle(creds, ((await response.json()) as { id: string }).id);
  expect(done.state).toBe("succeeded");
  return ManagedStartupSchema.parse(done.result?.managedStartup);
}

describe("environment version runPath and evidencePath", () => {
  it("a seeded runPath and evidencePath reach the activation result; a later version without them gets the defaults", async () => {
    harness = await createHarness();
    expect((await seedTools(harness, { versionId: "tools-1", ...CUSTOM })).status).toBe(200);
    expect(await activateTools(harness, "eng-paths-1")).toMatchObject({
      state: "available",
      versionId: "tools-1",
      startupScriptPath: "scripts/start.sh",
      ...CUSTOM,
      disclosure: null,
    });

    expect((await seedTools(harness, { versionId: "tools-2" })).status).toBe(200);
    const row = await harness.db.get(
      "SELECT run_path, evidence_path FROM environment_versions WHERE version_id = 'tools-2'",
    );
    expect({ ...row }).toEqual({ run_path: null, evidence_path: null });
    expect(await activateTools(harness, "eng-paths-2")).toMatchObject({
      state: "available",
      versionId: "tools-2",
      runPath: "~/.baton/runner/baton-runner.cjs",
      evidencePath: "~/.baton/evidence/acme__tools.json",
    });
  });

  it.each([
    ["runPath", "~/bin/runner.cjs"],
    ["runPath", "~/.baton/../.bashrc"],
    ["evidencePath", "/tmp/evidence.json"],
    ["evidencePath", "~/.baton\\evidence.json"],
  ])("the admin seed refuses %s %j with 400 naming the field, and stores nothing", async (field, value) => {
    harness = await createHarness();
    const response = await seedTools(harness, { versionId: "tools-bad", [field]: value });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(`environment.${field}`);
    expect(await harness.db.get("SELECT 1 FROM repositories WHERE id = 'repo_tools'")).toBeUndefined();
  });

  it("an unsafe value already in the store makes the handoff delivery_failed, with no runnable paths", async () => {
    harness = await createHarness();
    expect((await seedTools(harness, { versionId: "tools-1", ...CUSTOM })).status).toBe(200);
    // Written past the seed's validation, as a row from another tool or an older service could be.
    await harness.db.run("UPDATE environment_versions SET evidence_path = ? WHERE version_id = 'tools-1'", [
      "~/.baton/../.ssh/authorized_keys",
    ]);
    const handoff = await activateTools(harness, "eng-paths-3");
    expect(handoff).toMatchObject({ state: "delivery_failed", versionId: "tools-1", runPath: null });
    expect(handoff.evidencePath).toBeNull();
    expect(handoff.startupScriptPath).toBeNull();
    expect(handoff.disclosure).toContain("evidencePath");
  });

  it("a version stored before the migration reads back with null paths, so the defaults apply", async () => {
    dir = await mkdtemp(join(tmpdir(), "baton-paths-"));
    // openDatabase would migrate fully; an older database has only the migrations before this one.
    const { DatabaseSync } = await loadSqlite();
    db = new DatabaseSync(join(dir, "old.sqlite"));
    await migrateDatabase(
      db,
      MIGRATIONS.filter((m) => m.version < 21),
    );
    db.exec(`INSERT INTO workspaces (id, name, rollout_repository_environments, created_at)
               VALUES ('w', 'W', 1, '2026-01-01T00:00:00Z');
             INSERT INTO repositories (id, workspace_id, slug, connected, current_version_id)
               VALUES ('r', 'w', 'a/b', 1, 'v1');
             INSERT INTO environment_versions (repository_id, version_id, startup_script_path, readiness_json,
               created_at) VALUES ('r', 'v1', 'start.sh', '{"checks":[]}', '2026-01-01T00:00:00Z');`);
    expect(await migrateDatabase(db)).toContain(21);
    // Read through the store as the domain reads it (the test closes the file itself).
    expect(await loadCurrentVersion(new SqliteStore(db), "r")).toMatchObject({
      versionId: "v1",
      runPath: null,
      evidencePath: null,
    });
  });
});
