import { defineConfig } from "vitest/config";

/**
 * The service suites: every directory whose tests run `baton serve` or open the service's store. The postgres
 * project runs them again with BATON_TEST_STORE=postgres (test/helpers/test-store.ts), each on schemas of its own.
 */
const SERVICE_SUITES = [
  "test/integration/activation",
  "test/integration/api",
  "test/integration/capability",
  "test/integration/client",
  "test/integration/codehost",
  "test/integration/dashboard",
  "test/integration/integrations",
  "test/integration/mcp",
  "test/integration/oauth",
  "test/integration/pages",
  "test/integration/proxy",
  "test/integration/security",
  "test/integration/server",
  "test/integration/tracker",
  "test/integration/webhooks",
  "test/browser",
].map((dir) => `${dir}/**/*.test.ts`);

/** Suites about SQLite itself, already on PostgreSQL whatever the switch says, or with no store: not run twice. */
const SQLITE_OR_BOTH_ALREADY = [
  // The group commit of SQLite's store, its pragmas and the raw file's layout.
  "test/integration/server/group-commit.test.ts",
  "test/integration/server/store.test.ts",
  // The lock file beside a SQLite store (PostgreSQL has none: several instances share it).
  "test/integration/server/store-lock.test.ts",
  // migrate-store reads a SQLite file into PostgreSQL: both engines by construction.
  "test/integration/server/migrate-store.test.ts",
  // The .sqlite file's mode and the key beside it.
  "test/integration/server/temp-files.test.ts",
  // `baton serve --db`'s own flags (serve-postgres-flags.test.ts holds --database-url's).
  "test/integration/server/serve-flags.test.ts",
  // Already `baton serve --database-url` (and its flags) on every run.
  "test/integration/server/serve-postgres*.test.ts",
  // Migration 0040 sealing the plaintext an older SQLite file kept (PostgreSQL stores start at the latest schema).
  "test/integration/server/secrets-at-rest.test.ts",
  // The outbox over a SQLite file migrated to an early version only: it opens SQLite whatever the switch says.
  "test/integration/capability/outbox.test.ts",
  // 150 generated worlds, each a fresh store: a migrated schema per world would cost minutes on PostgreSQL; the
  // task engine's rules on PostgreSQL are covered by the api, dashboard and webhooks suites.
  "test/integration/server/domain/tasks/engine.property.test.ts",
  // No service and no store: the CLI against files or a scripted server, the proxy alone, an agent process,
  // the browser's ground; the same on either engine.
  "test/integration/activation/{env-apply-show,env-apply-crash,terminal-answer,legacy-results}.test.ts",
  "test/integration/client/{config-file,api-client}.test.ts",
  "test/integration/proxy/{ca-cli,service-listener}.test.ts",
  "test/integration/server/adapters/agents/{command,acp,real-agents}.test.ts",
  "test/browser/chromium.test.ts",
];

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores, two workers. Three were measured on fresh clones (2026-12-07): each file ran 1.3-1.4x slower, the
    // suite 4-13% faster (1,646 s against 1,708 and 1,890 s with two), with tests nearer their deadlines.
    maxWorkers: 2,
    // A worker keeps the modules it loaded for the next file instead of starting over: measured 2026-12-07, the
    // unit suite ran in 73 s against 113 s, and the api and mcp suites in 147 s against 184 s. The tests keep no
    // state in modules between files; engine-guard.ts fails a file that would run on another project's engine.
    isolate: false,
    setupFiles: ["test/helpers/engine-guard.ts"],
    projects: [
      { extends: true, test: { name: "sqlite", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "postgres",
          include: SERVICE_SUITES,
          exclude: SQLITE_OR_BOTH_ALREADY,
          env: { BATON_TEST_STORE: "postgres" },
          setupFiles: ["test/helpers/engine-guard.ts", "test/helpers/postgres-setup.ts"],
        },
      },
    ],
  },
});
