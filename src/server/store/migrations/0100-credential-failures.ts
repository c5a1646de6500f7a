// The failed-credential throttle shared by every instance on one PostgreSQL (issue 36, point 5), as the rate
// limits are: one row per source address holding the window the in-memory throttle keeps in a map
// (throttle/failed-credentials.ts), read and written under the source's lock. SQLite, one instance, keeps the
// throttle in memory but has the table too: one schema on both engines.
import type { Migration } from "./index.js";

export const credentialFailures: Migration = {
  version: 100,
  name: "credential-failures",
  async up(m) {
    await m.exec(`
CREATE TABLE credential_failures (
  source TEXT PRIMARY KEY,
  window_start_ms INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  refused INTEGER NOT NULL,
  blocked_until_ms INTEGER NOT NULL
);
CREATE INDEX credential_failures_window ON credential_failures (window_start_ms);
`);
  },
};
